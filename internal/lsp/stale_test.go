package lsp_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// These tests are the stale-edit policy (docs/PROTOCOL.md): the user types
// in a document while the agent's edit of it waits for review. The editor
// refuses the edit pinned to the old version (applied:false, failedChange);
// the server merges the edit over the typing and sends it again, or tells
// the model of the conflict. The user's text is never lost.

// typeThenAnswer is an applyEdit handler that, on its first call only,
// lets the user type (edit) before then answers: the review was open
// while they typed.
func typeThenAnswer(edit func(), then fake.ApplyHandler) fake.ApplyHandler {
	var once sync.Once
	return func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		once.Do(edit)
		return then(e, p)
	}
}

// modelSaw is the last tool result the model was sent.
func modelSaw(t *testing.T, m *agenttest.Server) agenttest.ToolResult {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return lastToolResult(t, reqs[len(reqs)-1])
}

// TestStaleEditMergedWithTyping: a run's edit_file waits for review; the
// user changes the package line meanwhile. The editor refuses the edit,
// the server sends it again merged and pinned to the new version, and
// both changes are in the buffer. The model is told of the merge; the
// undo of the run reverts the run's change and keeps the typing.
func TestStaleEditMergedWithTyping(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Fixed.")}}, nil)
	f.ed.SetApplyEdit(typeThenAnswer(func() { f.ed.Replace(f.uri, "package calc", "package calc // typed by the user") }, fake.Accept))

	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	typed := strings.Replace(calcGo, "package calc", "package calc // typed by the user", 1)
	want := strings.Replace(typed, "return a - b", "return a + b", 1)
	if got := f.ed.Text(f.uri); got != want {
		t.Fatalf("buffer:\n%s\nwant both the typing and the fix:\n%s", got, want)
	}
	edits := f.ed.AppliedEdits()
	if len(edits) != 2 {
		t.Fatalf("%d applyEdits, want the refused one and the merged one", len(edits))
	}
	first := edits[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	second := edits[1].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if *second.TextDocument.Version != *first.TextDocument.Version+1 {
		t.Errorf("the merged edit is pinned to %d, want %d (after the typing)", *second.TextDocument.Version, *first.TextDocument.Version+1)
	}
	if l := *edits[1].Label; !strings.Contains(l, "merged with your typing") {
		t.Errorf("second review's label %q does not say it was merged", l)
	}
	res := modelSaw(t, f.model)
	for _, want := range []string{"calc.go changed in the editor while this edit waited", "merged", "+\treturn a + b"} {
		if strings.HasPrefix(res.Content, "Error") || !strings.Contains(res.Content, want) {
			t.Errorf("tool result lacks %q:\n%s", want, res.Content)
		}
	}

	u := f.undo(t, map[string]any{"runId": runID})
	if !u.Undone {
		t.Fatalf("undo: %+v", u)
	}
	if got := f.ed.Text(f.uri); got != typed {
		t.Errorf("after the undo the buffer is\n%s\nwant the user's typing kept:\n%s", got, typed)
	}
}

// TestStaleEditConflictIsTold: the user changes the very line the edit
// changes. Nothing is sent again, the buffer holds exactly what the user
// typed, and the model is told why and what to do.
func TestStaleEditConflictIsTold(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Could not.")}}, nil)
	f.ed.SetApplyEdit(typeThenAnswer(func() { f.ed.Replace(f.uri, "return a - b", "return a - b // the user's") }, fake.Accept))

	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.awaitEnd(t, runID)
	typed := strings.Replace(calcGo, "return a - b", "return a - b // the user's", 1)
	if got := f.ed.Text(f.uri); got != typed {
		t.Errorf("buffer:\n%s\nwant exactly the user's text:\n%s", got, typed)
	}
	if n := len(f.ed.AppliedEdits()); n != 1 {
		t.Errorf("%d applyEdits, want 1: a conflict is not sent again", n)
	}
	res := modelSaw(t, f.model)
	for _, want := range []string{"Error: edit not applied", "calc.go changed in the editor while the edit waited", "touch the lines this edit changes", "line 5", "Nothing was changed", "Read calc.go again"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("tool result lacks %q:\n%s", want, res.Content)
		}
	}
}

// TestStaleEditDidChangeArrivesLate: the editor had the typing before the
// edit arrived but its didChange reaches the server only after the
// refusal (Neovim debounces didChange). The server waits for it, then
// merges.
func TestStaleEditDidChangeArrivesLate(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nalpha\nbeta\ngamma\ndelta\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	var once sync.Once
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		stale := false
		once.Do(func() {
			stale = true
			go func() {
				time.Sleep(150 * time.Millisecond)
				e.Replace(u, "delta", "delta, typed")
			}()
		})
		if stale {
			reason, zero := "a.txt changed in the editor after the edit was made", uint32(0)
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason, FailedChange: &zero}
		}
		return fake.Accept(e, p)
	})
	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 5, "text": "ALPHA"})
	if isErr {
		t.Fatalf("apply: %s", out)
	}
	if got, want := e.Text(u), "ALPHA\nbeta\ngamma\ndelta, typed\n"; got != want {
		t.Errorf("buffer = %q, want %q", got, want)
	}
	edits := e.AppliedEdits()
	if len(edits) != 2 || *edits[1].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit).TextDocument.Version != 2 {
		t.Errorf("want a second applyEdit pinned to version 2; got %d requests", len(edits))
	}
}

// TestStaleEditUserKeepsTyping: every review is overtaken by more typing.
// The server gives up after a few passes; everything typed is there.
func TestStaleEditUserKeepsTyping(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nfirst\nsecond\nthird\nfourth\nfifth\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	n := 0
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		n++
		e.Replace(u, "fifth", fmt.Sprintf("fifth %d", n))
		return fake.Accept(e, p)
	})
	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 5, "text": "FIRST"})
	if !isErr || !strings.Contains(out, "kept typing") {
		t.Errorf("result %q (error=%v), want the kept-typing refusal", out, isErr)
	}
	if got := e.Text(u); !strings.HasPrefix(got, "first\n") || !strings.Contains(got, fmt.Sprintf("fifth %d", n)) {
		t.Errorf("buffer = %q: the user's typing must be all there and the edit not", got)
	}
	if got := len(e.AppliedEdits()); got < 2 || got > 6 {
		t.Errorf("%d applyEdits: want a few passes, then give up", got)
	}
}

// TestRefusalWithoutTypingIsNotRetried: a refusal naming a change whose
// buffer never moves (a dismissed review, an editor error) is reported
// as it is, once.
func TestRefusalWithoutTypingIsNotRetried(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nkeep\n")
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools, EditGrace: 300 * time.Millisecond}})
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		reason, zero := "the editor could not apply it", uint32(0)
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason, FailedChange: &zero}
	})
	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 4, "text": "lose"})
	if !isErr || !strings.Contains(out, "the editor could not apply it") {
		t.Errorf("result %q (error=%v)", out, isErr)
	}
	if n := len(e.AppliedEdits()); n != 1 {
		t.Errorf("%d applyEdits, want 1", n)
	}
	if got := e.Text(u); got != "keep\n" {
		t.Errorf("buffer = %q", got)
	}
}

// TestStaleEditReadsSeeTypingWhilePending: while an edit waits for
// review, the server keeps processing didChange (reads see the new text).
func TestStaleEditReadsSeeTypingWhilePending(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nline one\nline two\nline three\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	release := make(chan struct{})
	e.SetApplyEdit(fake.Delay(release, fake.Accept))
	done := make(chan string, 1)
	go func() {
		out, _ := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 4, "text": "LINE"})
		done <- out
	}()
	e.Await("the applyEdit request", func() bool { return len(e.AppliedEdits()) == 1 })
	e.Replace(u, "three", "3")
	if got := readProbe(t, e, "a.txt"); got != "line one\nline two\nline 3\n" {
		t.Errorf("while an edit waits for review the server saw %q; didChange was blocked", got)
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case out := <-done:
		if !strings.Contains(out, "applied") || strings.Contains(out, "not applied") {
			t.Errorf("apply: %s", out)
		}
	case <-ctx.Done():
		t.Fatal("the edit never finished")
	}
	if got := e.Text(u); got != "LINE one\nline two\nline 3\n" {
		t.Errorf("buffer = %q", got)
	}
}
