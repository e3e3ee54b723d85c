package lsp_test

import (
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// These tests check that keeping a run's changes in the editor never
// loses the user's work.

// TestPendingUndoAfterTwoKeepsKeepsTyping: the user keeps one hunk,
// types a line, keeps the other; undoing the run reverts the two kept
// hunks and leaves the typed line.
func TestPendingUndoAfterTwoKeepsKeepsTyping(t *testing.T) {
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "package calc", "new_string": "package calculator"})),
		editCall(),
		agenttest.TextTurn("Two changes."),
	}}, true)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	files := f.ed.AwaitPending(runID, "two hunks", func(fs []lsp.PendingFile) bool {
		c, err := fake.FileOf(fs, "calc.go")
		return err == nil && len(c.Hunks) == 2
	})
	calc, _ := fake.FileOf(files, "calc.go")
	if res, err := f.ed.Keep(runID, nil, []string{calc.Hunks[0].ID}); err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep the first hunk = %+v, %v", res, err)
	}
	f.ed.Replace(f.uri, "// Add returns a plus b.\n", "// Add returns a plus b.\n// mine\n")
	if res, err := f.ed.Keep(runID, nil, nil); err != nil || len(res.Kept) != 1 || len(res.Left) != 0 {
		t.Fatalf("keep the rest = %+v, %v", res, err)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "package calculator") || !strings.Contains(got, "a + b") || !strings.Contains(got, "// mine") {
		t.Fatalf("buffer after the keeps:\n%s", got)
	}
	if res := f.undo(t, map[string]string{"runId": runID}); !res.Undone {
		t.Fatalf("undo = %+v", res)
	}
	want := strings.Replace(calcGo, "// Add returns a plus b.\n", "// Add returns a plus b.\n// mine\n", 1)
	if got := f.ed.Text(f.uri); got != want {
		t.Errorf("buffer after the undo:\n%s\nwant the run's hunks reverted and the typed line kept:\n%s", got, want)
	}
}
