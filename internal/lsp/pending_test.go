package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// These tests drive pending changes through the fake editor: a run's
// edits and the files its commands write stay in the run's change set
// while it works, and reach the user's buffers only through
// catbuddy.keep (or, for a client that cannot show them, one review at
// the end of each turn).

// newPendingFixture is a run fixture whose editor shows pending changes
// (capabilities.experimental.catbuddy.pendingChanges) when capable.
func newPendingFixture(t *testing.T, script agenttest.Script, capable bool) *runFixture {
	t.Helper()
	return newRunFixtureWith(t, script, func(o *fake.Options, _ map[string]any) { o.PendingChanges = capable })
}

// gate holds the model's answer to request n until open is closed: the
// test acts while the run waits for its model, at a known step.
func gate(model *agenttest.Server, turns []agenttest.Turn, n int) (open func()) {
	ch := make(chan struct{})
	var once sync.Once
	model.SetNext(func(i int, _ agenttest.Request) agenttest.Turn {
		if i == n {
			<-ch
		}
		return turns[i]
	})
	return func() { once.Do(func() { close(ch) }) }
}

// hasFile reports whether files list path with kind.
func hasFile(files []lsp.PendingFile, path, kind string) bool {
	return slices.ContainsFunc(files, func(f lsp.PendingFile) bool { return f.Path == path && f.Kind == kind })
}

// TestPendingRunNeverWaits: a run edits calc.go, runs a command that
// writes (and reads the pending edit), then reads back what it wrote.
// It sends no applyEdit and asks nothing while it works; disk and
// buffers are unchanged; the notifications list both files; keeping
// calc.go's hunk lands that hunk alone, in one applyEdit the user is not
// asked to confirm; discarding the rest leaves the disk as it was.
func TestPendingRunNeverWaits(t *testing.T) {
	needsLayer(t)
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{
			"command": "grep -c 'a + b' calc.go > seen.txt; cat seen.txt", "write": true, "reason": "count the fixed lines",
		})),
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "seen.txt"})),
		agenttest.TextTurn("Fixed; the command saw it."),
		agenttest.TextTurn("Noted."),
	}}, true)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	end := f.awaitEnd(t, runID)
	if end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	// Nothing reached the user's files; both files wait for review.
	if len(end.Changed) != 0 || end.Pending == nil || *end.Pending != 2 {
		t.Errorf("end says changed %v, pending %v; want none changed, 2 pending", end.Changed, end.Pending)
	}
	if n := len(f.ed.AppliedEdits()); n != 0 {
		t.Errorf("the run sent %d applyEdits while it worked, want none", n)
	}
	if q := f.ed.Questions(); len(q) != 0 {
		t.Errorf("the run asked %d questions, want none: %+v", len(q), q)
	}
	reqs := f.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model got %d requests, want 4", len(reqs))
	}
	if out := lastToolResult(t, reqs[2]).Content; !strings.Contains(out, "1") || strings.Contains(out, "not applied") {
		t.Errorf("the command did not see the pending edit: %q", out)
	}
	if out := lastToolResult(t, reqs[3]).Content; !strings.Contains(out, "1") {
		t.Errorf("read_file did not see what the command wrote: %q", out)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("the buffer changed while the edit was pending:\n%s", got)
	}
	if disk, _ := os.ReadFile(f.calc); string(disk) != calcGo {
		t.Errorf("calc.go changed on disk while pending:\n%s", disk)
	}
	seen := filepath.Join(f.dir, "seen.txt")
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("seen.txt is on disk while pending: %v", err)
	}

	files := f.ed.AwaitPending(runID, "calc.go and seen.txt pending", func(fs []lsp.PendingFile) bool {
		return hasFile(fs, "calc.go", "changed") && hasFile(fs, "seen.txt", "created")
	})
	calc, err := fake.FileOf(files, "calc.go")
	if err != nil || len(calc.Hunks) != 1 {
		t.Fatalf("calc.go pending = %+v, %v; want one hunk", calc, err)
	}
	h := calc.Hunks[0]
	if h.Range.Start.Line != 4 || !strings.Contains(h.OldText, "a - b") || !strings.Contains(h.NewText, "a + b") || calc.URI != f.uri {
		t.Errorf("calc.go's hunk = %+v (uri %s), want line 5 a - b → a + b in %s", h, calc.URI, f.uri)
	}

	var runs []struct {
		RunID   string `json:"runId"`
		Pending int    `json:"pending"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.listRuns", nil, &runs); err != nil || len(runs) != 1 || runs[0].RunID != runID || runs[0].Pending != 2 {
		t.Errorf("listRuns = %+v, %v; want the run with 2 pending", runs, err)
	}

	res, err := f.ed.Keep(runID, nil, []string{h.ID})
	if err != nil || !slices.Equal(res.Kept, []string{h.ID}) || len(res.Left) != 0 {
		t.Fatalf("keep = %+v, %v", res, err)
	}
	edits := f.ed.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("keep sent %d applyEdits, want 1", len(edits))
	}
	if len(edits[0].Edit.ChangeAnnotations) != 0 {
		t.Errorf("the keep asks the user again: %+v", edits[0].Edit.ChangeAnnotations)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
		t.Errorf("the kept hunk did not land:\n%s", got)
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("keeping calc.go's hunk created seen.txt: %v", err)
	}
	f.ed.AwaitPending(runID, "only seen.txt left", func(fs []lsp.PendingFile) bool {
		return len(fs) == 1 && hasFile(fs, "seen.txt", "created")
	})

	gone, err := f.ed.Discard(runID, nil, nil)
	if err != nil || len(gone.Discarded) != 1 {
		t.Fatalf("discard = %+v, %v", gone, err)
	}
	f.ed.AwaitPending(runID, "nothing pending", func(fs []lsp.PendingFile) bool { return len(fs) == 0 })
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("seen.txt reached the disk although discarded: %v", err)
	}
	if n := len(f.ed.AppliedEdits()); n != 1 {
		t.Errorf("%d applyEdits after the discard, want still 1", n)
	}
	var list lsp.PendingList
	if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{}}, &list); err != nil || len(list.Runs) != 0 {
		t.Errorf("pendingChanges after keep and discard = %+v, %v; want no run", list, err)
	}

	// The next reply tells the model what the user kept and discarded.
	if err := f.ed.ExecuteCommand("catbuddy.reply", []any{map[string]any{"runId": runID, "input": "thanks"}}, nil); err != nil {
		t.Fatalf("catbuddy.reply: %v", err)
	}
	f.ed.Await("the reply's end", func() bool {
		n := 0
		for _, ev := range f.events(runID) {
			if ev.Kind == "end" {
				n++
			}
		}
		return n == 2
	})
	reqs = f.model.Requests()
	if said := reqs[len(reqs)-1].LastUserText(); !strings.Contains(said, "kept") || !strings.Contains(said, "discarded") || !strings.Contains(said, "thanks") {
		t.Errorf("the reply does not carry what was kept and discarded:\n%s", said)
	}

	// What was kept is undone like any edit of the run.
	if res := f.undo(t, map[string]string{"runId": runID}); !res.Undone {
		t.Fatalf("undo of the kept hunk = %+v", res)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("buffer after undo:\n%s", got)
	}
}

// TestPendingDiscardMidRunIsNamed: the user discards the run's edit
// while the run waits for its model; the next tool result names it.
func TestPendingDiscardMidRunIsNamed(t *testing.T) {
	turns := []agenttest.Turn{
		editCall(),
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("Left as the user wants."),
	}
	f := newPendingFixture(t, agenttest.Script{Turns: turns}, true)
	open := gate(f.model, turns, 1)
	defer open()
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.AwaitPending(runID, "the pending edit", func(fs []lsp.PendingFile) bool { return hasFile(fs, "calc.go", "changed") })
	// The edit's own result has gone to the model, which is held back:
	// the discard happens between two tool calls.
	if _, err := f.model.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ed.Discard(runID, []uri.URI{f.uri}, nil); err != nil {
		t.Fatalf("discard: %v", err)
	}
	open()
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model got %d requests, want 3", len(reqs))
	}
	out := lastToolResult(t, reqs[2]).Content
	if !strings.Contains(out, "discarded") || !strings.Contains(out, "calc.go") {
		t.Errorf("the read after the discard does not name it:\n%s", out)
	}
	if !strings.Contains(out, "return a - b") {
		t.Errorf("the run still reads its discarded edit:\n%s", out)
	}
	if got := f.ed.Text(f.uri); got != calcGo || len(f.ed.AppliedEdits()) != 0 {
		t.Errorf("a discarded edit reached the buffer:\n%s", got)
	}
}

// TestPendingSettledEndSaysWhatLanded: the user keeps one file and
// discards the other while the run works. The run's end says that
// nothing is pending and names the kept file alone as changed, so a
// client says neither "pending review" nor that the discarded file
// changed (nor offers to undo it).
func TestPendingSettledEndSaysWhatLanded(t *testing.T) {
	turns := []agenttest.Turn{
		editCall(),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "notes.txt", "content": "notes\n"})),
		agenttest.TextTurn("Fixed, with notes."),
	}
	f := newPendingFixture(t, agenttest.Script{Turns: turns}, true)
	open := gate(f.model, turns, 2)
	defer open()
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.AwaitPending(runID, "calc.go and notes.txt", func(fs []lsp.PendingFile) bool {
		return hasFile(fs, "calc.go", "changed") && hasFile(fs, "notes.txt", "created")
	})
	if _, err := f.model.WaitRequests(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	if res, err := f.ed.Keep(runID, []uri.URI{f.uri}, nil); err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep calc.go = %+v, %v", res, err)
	}
	if _, err := f.ed.Discard(runID, nil, nil); err != nil {
		t.Fatalf("discard the rest: %v", err)
	}
	open()
	end := f.awaitEnd(t, runID)
	if end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	if end.Pending == nil || *end.Pending != 0 {
		t.Errorf("end says %v pending, want 0", end.Pending)
	}
	if !slices.Equal(end.Changed, []string{"calc.go"}) {
		t.Errorf("end says changed %v, want [calc.go] (kept; notes.txt was discarded)", end.Changed)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the discarded notes.txt is on disk: %v", err)
	}
}

// TestPendingKeepMergesTyping: the user types in the file while the run
// works; at keep time the hunk far from the typing is merged over it,
// and the one the typing touches is left with the reason.
func TestPendingKeepMergesTyping(t *testing.T) {
	turns := []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "package calc", "new_string": "package calculator"})),
		editCall(),
		agenttest.TextTurn("Two changes."),
	}
	f := newPendingFixture(t, agenttest.Script{Turns: turns}, true)
	open := gate(f.model, turns, 2)
	defer open()
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	files := f.ed.AwaitPending(runID, "two hunks", func(fs []lsp.PendingFile) bool {
		c, err := fake.FileOf(fs, "calc.go")
		return err == nil && len(c.Hunks) == 2
	})
	calc, _ := fake.FileOf(files, "calc.go")
	// While the run waits for its model, the user rewrites the return
	// line (the second hunk's) and adds a comment at the end, far from
	// the first.
	f.ed.Replace(f.uri, "return a - b", "return b + a")
	f.ed.Replace(f.uri, "\treturn b + a\n}\n", "\treturn b + a\n}\n\n// More to come.\n")
	open()
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	notes := len(f.ed.PendingNotes())

	res, err := f.ed.Keep(runID, nil, nil)
	if err != nil {
		t.Fatalf("keep: %v", err)
	}
	if !slices.Equal(res.Kept, []string{calc.Hunks[0].ID}) {
		t.Errorf("kept %v, want the first hunk %s", res.Kept, calc.Hunks[0].ID)
	}
	if len(res.Left) != 1 || res.Left[0].Hunk != calc.Hunks[1].ID || res.Left[0].Reason == "" {
		t.Errorf("left %+v, want the second hunk with a reason", res.Left)
	}
	want := "package calculator\n\n// Add returns a plus b.\nfunc Add(a, b int) int {\n\treturn b + a\n}\n\n// More to come.\n"
	if got := f.ed.Text(f.uri); got != want {
		t.Errorf("buffer after keep:\n%s\nwant:\n%s", got, want)
	}
	left := f.ed.AwaitPending(runID, "the conflicting hunk still pending", func(fs []lsp.PendingFile) bool {
		return len(f.ed.PendingNotes()) > notes && len(fake.HunkIDs(fs)) == 1
	})
	if c, _ := fake.FileOf(left, "calc.go"); len(c.Hunks) != 1 || c.Hunks[0].Conflict == "" {
		t.Errorf("the left hunk carries no conflict: %+v", c)
	}
}

// TestPendingTwoRunsOneFile: a second run on a document whose run is
// still going is not refused; each keeps, the second merged over the
// first.
func TestPendingTwoRunsOneFile(t *testing.T) {
	first := []agenttest.Turn{
		editCall(),
		agenttest.TextTurn("First."),
	}
	second := []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "// Add returns a plus b.", "new_string": "// Add returns the sum of a and b."})),
		agenttest.TextTurn("Second."),
	}
	f := newPendingFixture(t, agenttest.Script{}, true)
	hold := make(chan struct{})
	f.model.SetNext(func(i int, req agenttest.Request) agenttest.Turn {
		// The runs' requests interleave: each is answered by its own
		// script, by how many tool results it carries.
		turns := first
		if strings.Contains(req.LastUserText(), "second run") || strings.Contains(firstUserText(req), "second run") {
			turns = second
		} else if len(req.ToolResults()) == 1 {
			<-hold // the first run waits until the second has ended
		}
		return turns[len(req.ToolResults())]
	})
	one := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.AwaitPending(one, "the first run's edit", func(fs []lsp.PendingFile) bool { return hasFile(fs, "calc.go", "changed") })
	two := f.start(t, "catbuddy.run", mergeArgs(f.fixArgs(), map[string]any{"command": "ask", "input": "the second run: reword the comment"}))
	if end := f.awaitEnd(t, two); end.Outcome != "done" {
		t.Fatalf("second run ended %+v", end)
	}
	close(hold)
	if end := f.awaitEnd(t, one); end.Outcome != "done" {
		t.Fatalf("first run ended %+v", end)
	}
	for _, id := range []string{one, two} {
		res, err := f.ed.Keep(id, nil, nil)
		if err != nil || len(res.Kept) != 1 || len(res.Left) != 0 {
			t.Fatalf("keep %s = %+v, %v", id, res, err)
		}
	}
	want := strings.NewReplacer("return a - b", "return a + b", "// Add returns a plus b.", "// Add returns the sum of a and b.").Replace(calcGo)
	if got := f.ed.Text(f.uri); got != want {
		t.Errorf("buffer after both keeps:\n%s\nwant:\n%s", got, want)
	}
}

// firstUserText is the request's first user message.
func firstUserText(req agenttest.Request) string {
	for _, m := range req.Messages() {
		if m.Role == "user" {
			return m.Text
		}
	}
	return ""
}

// TestPendingWithoutCapabilityReviewsOncePerTurn: a client that cannot
// show pending changes gets the turn's whole set as ONE annotated
// applyEdit before the end event; what it rejects is discarded.
func TestPendingWithoutCapabilityReviewsOncePerTurn(t *testing.T) {
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "notes.txt", "content": "fixed Add\n"})),
		agenttest.TextTurn("Fixed, with a note."),
	}}, false)
	f.ed.SetApplyEdit(fake.AcceptHunks(func(label string) bool { return !strings.Contains(label, "notes.txt") }))
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	edits := f.ed.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdits, want ONE review at the end of the turn", len(edits))
	}
	files := map[string]bool{}
	for _, dc := range edits[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			files[filepath.Base(pathOf(t, c.TextDocument.URI))] = true
		case *protocol.CreateFile:
			files[filepath.Base(pathOf(t, c.URI))] = true
		}
	}
	if !files["calc.go"] || !files["notes.txt"] {
		t.Errorf("the review covers %v, want calc.go and notes.txt", files)
	}
	if len(edits[0].Edit.ChangeAnnotations) < 2 {
		t.Errorf("the review has %d annotations, want one per hunk", len(edits[0].Edit.ChangeAnnotations))
	}
	for id, a := range edits[0].Edit.ChangeAnnotations {
		if a.NeedsConfirmation == nil || !*a.NeedsConfirmation {
			t.Errorf("annotation %s does not need confirmation", id)
		}
	}
	log := f.ed.Received()
	if i, j := strings.Index(log, `"workspace/applyEdit"`), strings.LastIndex(log, `"kind":"end"`); i < 0 || j < i {
		t.Errorf("the review (at %d) does not come before the end event (at %d)", i, j)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
		t.Errorf("the accepted hunk did not land:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the rejected file was created: %v", err)
	}
	if n := len(f.ed.PendingNotes()); n != 0 {
		t.Errorf("%d pendingChanges notifications to a client without the capability", n)
	}
	var list lsp.PendingList
	if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil || len(list.Runs) != 0 {
		t.Errorf("after the review pendingChanges = %+v, %v; want nothing left", list, err)
	}
}

// TestReviewBeforeAsToday: review "before" with a client that could show
// pending changes: the edit is reviewed while the run works, nothing is
// pending, and a second run on the document is refused.
func TestReviewBeforeAsToday(t *testing.T) {
	release := make(chan struct{})
	f := newRunFixtureWith(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.TextTurn("Fixed."),
	}}, func(o *fake.Options, init map[string]any) {
		o.PendingChanges = true
		init["review"] = "before"
	})
	f.ed.SetApplyEdit(fake.Delay(release, fake.Accept))
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.Await("the edit's review", func() bool { return len(f.ed.AppliedEdits()) == 1 })
	err := f.ed.ExecuteCommand("catbuddy.fix", []any{f.fixArgs()}, nil)
	if err == nil || !strings.Contains(err.Error(), "already has a run") {
		t.Errorf("a second run on the document while the first waits for review: %v, want refused", err)
	}
	close(release)
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
		t.Errorf("buffer not fixed:\n%s", got)
	}
	for id, a := range f.ed.AppliedEdits()[0].Edit.ChangeAnnotations {
		if a.NeedsConfirmation == nil || !*a.NeedsConfirmation {
			t.Errorf("annotation %s does not need confirmation", id)
		}
	}
	if n := len(f.ed.PendingNotes()); n != 0 {
		t.Errorf("%d pendingChanges notifications with review before", n)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".catbuddy", "runs", runID)); !os.IsNotExist(err) {
		t.Errorf("review before keeps a change set: %v", err)
	}
}

// needsLayer skips a test whose command must run over the run's
// copy-on-write layer where overlayfs in a user namespace is missing.
func needsLayer(t *testing.T) {
	t.Helper()
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
}

// TestPendingRangesFollowTyping: a hunk's range is in the buffer as it
// is now: after the user adds lines above it, catbuddy.pendingChanges
// places it that much lower, with the same text.
func TestPendingRangesFollowTyping(t *testing.T) {
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.TextTurn("Fixed."),
	}}, true)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	f.ed.Replace(f.uri, "package calc\n", "package calc\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n")
	var list lsp.PendingList
	if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil || len(list.Runs) != 1 {
		t.Fatalf("pendingChanges = %+v, %v", list, err)
	}
	calc, err := fake.FileOf(list.Runs[0].Files, "calc.go")
	if err != nil || len(calc.Hunks) != 1 {
		t.Fatalf("calc.go pending = %+v, %v", calc, err)
	}
	h := calc.Hunks[0]
	if h.Range.Start.Line != 8 || h.Conflict != "" {
		t.Errorf("the hunk is at line %d (conflict %q), want line 9 of the typed-over buffer", h.Range.Start.Line+1, h.Conflict)
	}
	text := f.ed.Text(f.uri)
	lines := strings.SplitAfter(text, "\n")
	if got := lines[h.Range.Start.Line]; got != h.OldText {
		t.Errorf("the range holds %q, want the hunk's old text %q", got, h.OldText)
	}
}
