package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestPendingEditNamesNewDiagnostics: in the editor, a run's edit that
// waits for review is not in the user's buffers, so the editor's servers
// cannot check it (the fake editor, answering from its buffer, reports
// nothing new). gopls, found on PATH and started by cb-ls when the run
// first checks a .go file, is shown the run's text: the edit that breaks
// the build names its error, and the one that fixes it names nothing.
func TestPendingEditNamesNewDiagnostics(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "the run's view diagnostics in the editor", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	needsLayer(t)
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + totalMark"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + totalMark", "new_string": "return a + b"})),
		agenttest.TextTurn("Done."),
		agenttest.TextTurn("Noted."),
	}}, true)
	if err := os.WriteFile(filepath.Join(f.dir, "go.mod"), []byte("module example.com/calc\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ed.SetDiagnostics(goplsLike) // the editor's: from its buffer, which the run's edits never reach
	end := f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs()))
	if end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	reqs := f.model.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model requests, want at least 3", len(reqs))
	}
	last := func(i int) string {
		res := reqs[i].ToolResults()
		if len(res) == 0 {
			t.Fatalf("request %d carries no tool result", i)
		}
		return res[len(res)-1].Content
	}
	broke := last(1)
	if !strings.Contains(broke, "pending the user's review") || !strings.Contains(broke, "After this edit, gopls reports:") ||
		!strings.Contains(broke, "calc.go:5:13 error: undefined: totalMark") {
		t.Errorf("the breaking edit's result:\n%s\nwant gopls's new error on the run's text", broke)
	}
	if fixed := last(2); strings.Contains(fixed, "reports") || strings.Contains(fixed, "Note:") {
		t.Errorf("the fixing edit's result:\n%s\nwant nothing new", fixed)
	}
	if got := f.ed.Text(f.uri); strings.Contains(got, "totalMark") {
		t.Errorf("the user's buffer holds the pending edit:\n%s", got)
	}
}
