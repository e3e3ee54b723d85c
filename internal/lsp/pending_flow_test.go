package lsp_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// pendingFlow is editors/testdata/pending_flow.json: the pending review
// flow that the e2e suites of both editors (editors/vscode/e2e/pending.js,
// editors/neovim/tests/e2e/pending_test.lua) drive and assert. Here the
// fake editor drives it: what the editors draw is theirs to check, what
// the server sends and keeps is checked here.
type pendingFlow struct {
	Files        map[string]string
	Start        flowStart
	Turns        []agenttest.Turn
	ChangedFiles int
	Pending      map[string]int
	Count        int
	Keep         struct {
		File string
		Hunk int
		Line int
		Disk map[string]string
	}
	CountAfterKeep int
	UndoAll        []struct {
		File  string
		Count int
	}
	Disk     map[string]string
	Conflict struct {
		Files             map[string]string
		Start             flowStart
		Turns             []agenttest.Turn
		Type, Typed, Left string
		Disk              map[string]string
	}
}

// flowStart is where Fix This runs: a 1-based line of a file.
type flowStart struct {
	File  string
	Line  int
	Shows string
}

func loadPendingFlow(t *testing.T) pendingFlow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "editors", "testdata", "pending_flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx pendingFlow
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatalf("pending_flow.json: %v", err)
	}
	return fx
}

// newFlowFixture writes files into a new folder, starts the scripted
// model on turns and an editor that shows pending changes, and opens
// start's file.
func newFlowFixture(t *testing.T, files map[string]string, turns []agenttest.Turn, start flowStart) *runFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := agenttest.NewServer(t, agenttest.Script{Turns: turns})
	ed := fake.New(t, fake.Options{Folders: []string{dir}, PendingChanges: true, InitializationOptions: map[string]any{
		"provider": "openai", "baseUrl": model.URL(), "model": "scripted", "apiKey": testKey, "maxSteps": 10,
	}})
	path := filepath.Join(dir, start.File)
	return &runFixture{dir: dir, calc: path, uri: ed.OpenFile(path), model: model, ed: ed}
}

// fixAt starts Fix This on start's line and waits for the run's end.
func (f *runFixture) fixAt(t *testing.T, start flowStart) string {
	t.Helper()
	if line := strings.Split(f.ed.Text(f.uri), "\n")[start.Line-1]; !strings.Contains(line, start.Shows) {
		t.Fatalf("line %d of %s is %q, want it to show %q", start.Line, start.File, line, start.Shows)
	}
	runID := f.start(t, "catbuddy.fix", map[string]any{
		"uri":   f.uri,
		"range": map[string]any{"start": map[string]int{"line": start.Line - 1, "character": 0}, "end": map[string]int{"line": start.Line, "character": 0}},
	})
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	return runID
}

// contents is what the user has of each file named in want: the open
// buffer's text (which the editor saves after a keep), else the disk's.
func (f *runFixture) contents(want map[string]string) map[string]string {
	out := map[string]string{}
	for name := range want {
		p := filepath.Join(f.dir, name)
		if u := fileuri.FromPath(p); f.ed.IsOpen(u) {
			out[name] = f.ed.Text(u)
		} else if b, err := os.ReadFile(p); err == nil {
			out[name] = string(b)
		}
	}
	return out
}

// hunkCounts is each pending file's hunk count, and their total.
func hunkCounts(fs []lsp.PendingFile) (map[string]int, int) {
	out, n := map[string]int{}, 0
	for _, pf := range fs {
		out[pf.Path] = len(pf.Hunks)
		n += len(pf.Hunks)
	}
	return out, n
}

func TestPendingFlowFixture(t *testing.T) {
	needsLayer(t)
	fx := loadPendingFlow(t)
	f := newFlowFixture(t, fx.Files, fx.Turns, fx.Start)
	runID := f.fixAt(t, fx.Start)
	if n := len(f.ed.AppliedEdits()); n != 0 {
		t.Errorf("the run sent %d applyEdits, want none", n)
	}
	if q := f.ed.Questions(); len(q) != 0 {
		t.Errorf("the run asked %d questions (the writing command among them?), want none: %+v", len(q), q)
	}
	files := f.ed.AwaitPending(runID, "the fixture's pending files", func(fs []lsp.PendingFile) bool {
		counts, _ := hunkCounts(fs)
		return len(counts) == len(fx.Pending)
	})
	counts, total := hunkCounts(files)
	if !maps.Equal(counts, fx.Pending) || total != fx.Count || len(files) != fx.ChangedFiles {
		t.Fatalf("pending %v (%d hunks, %d files), want %v (%d, %d)", counts, total, len(files), fx.Pending, fx.Count, fx.ChangedFiles)
	}
	if got := f.contents(fx.Files); !maps.Equal(got, fx.Files) {
		t.Errorf("the files changed while pending: %q", got)
	}

	kf, err := fake.FileOf(files, fx.Keep.File)
	if err != nil {
		t.Fatal(err)
	}
	hunks := slices.Clone(kf.Hunks)
	slices.SortFunc(hunks, func(a, b lsp.PendingHunk) int { return int(a.Range.Start.Line) - int(b.Range.Start.Line) })
	h := hunks[fx.Keep.Hunk-1]
	if int(h.Range.Start.Line)+1 != fx.Keep.Line {
		t.Errorf("hunk %d of %s starts on line %d, want %d", fx.Keep.Hunk, fx.Keep.File, h.Range.Start.Line+1, fx.Keep.Line)
	}
	if res, err := f.ed.Keep(runID, nil, []string{h.ID}); err != nil || !slices.Equal(res.Kept, []string{h.ID}) {
		t.Fatalf("keep = %+v, %v", res, err)
	}
	if got := f.contents(fx.Keep.Disk); !maps.Equal(got, fx.Keep.Disk) {
		t.Errorf("after the keep the files hold %q, want %q", got, fx.Keep.Disk)
	}
	f.ed.AwaitPending(runID, "the count after the keep", func(fs []lsp.PendingFile) bool {
		_, n := hunkCounts(fs)
		return n == fx.CountAfterKeep
	})

	for _, step := range fx.UndoAll {
		u := fileuri.FromPath(filepath.Join(f.dir, step.File))
		if _, err := f.ed.Discard(runID, []uri.URI{u}, nil); err != nil {
			t.Fatalf("discard %s: %v", step.File, err)
		}
		f.ed.AwaitPending(runID, "the count after undo all in "+step.File, func(fs []lsp.PendingFile) bool {
			_, n := hunkCounts(fs)
			return n == step.Count
		})
	}
	if got := f.contents(fx.Disk); !maps.Equal(got, fx.Disk) {
		t.Errorf("after undo all the files hold %q, want %q", got, fx.Disk)
	}
	if n := len(f.ed.AppliedEdits()); n != 1 {
		t.Errorf("%d applyEdits in all, want the keep's one", n)
	}
}

func TestPendingFlowFixtureConflict(t *testing.T) {
	cf := loadPendingFlow(t).Conflict
	f := newFlowFixture(t, cf.Files, cf.Turns, cf.Start)
	runID := f.fixAt(t, cf.Start)
	f.ed.AwaitPending(runID, "one hunk", func(fs []lsp.PendingFile) bool {
		_, n := hunkCounts(fs)
		return n == 1
	})
	// The user types at the end of the very line the hunk replaces.
	line := strings.Split(f.ed.Text(f.uri), "\n")[cf.Start.Line-1]
	at := protocol.Position{Line: uint32(cf.Start.Line - 1), Character: uint32(len(line))}
	f.ed.EditRange(f.uri, at, at, cf.Type)
	if got := strings.Split(f.ed.Text(f.uri), "\n")[cf.Start.Line-1]; got != cf.Typed {
		t.Fatalf("the typed line is %q, want %q", got, cf.Typed)
	}
	var list lsp.PendingList
	f.ed.Await("the hunk in conflict", func() bool {
		if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil || len(list.Runs) != 1 {
			return false
		}
		fs := list.Runs[0].Files
		return len(fs) == 1 && len(fs[0].Hunks) == 1 && fs[0].Hunks[0].Conflict != ""
	})
	res, err := f.ed.Keep(runID, nil, nil)
	if err != nil || len(res.Kept) != 0 || len(res.Left) != 1 || res.Left[0].Reason == "" {
		t.Fatalf("keep over the typing = %+v, %v; want the hunk left with its reason", res, err)
	}
	if got := strings.Split(f.ed.Text(f.uri), "\n")[cf.Start.Line-1]; got != cf.Typed {
		t.Errorf("the typing is %q after the keep, want %q", got, cf.Typed)
	}
	for name, want := range cf.Disk {
		if b, _ := os.ReadFile(filepath.Join(f.dir, name)); string(b) != want {
			t.Errorf("%s on disk:\n%s\nwant:\n%s", name, b, want)
		}
	}
}
