package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// These tests check that every conflict of a pending hunk with the
// user's text has a way out through catbuddy.keep's conflicts.

// insertCall is a run's edit_file that adds line after Add's opening
// line: two runs with it insert at one place.
func insertCall(line string) agenttest.Turn {
	return agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{
		"path": "calc.go", "old_string": "func Add(a, b int) int {", "new_string": "func Add(a, b int) int {\n" + line,
	}))
}

// twoInsertions runs two runs one after the other, each inserting a
// line at the same place of calc.go, and keeps the first: the second's
// hunk then conflicts with the buffer. It returns the second run's id
// and title.
func twoInsertions(t *testing.T) (*runFixture, string, string) {
	t.Helper()
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		insertCall("\t// one"), agenttest.TextTurn("First."),
		insertCall("\t// two"), agenttest.TextTurn("Second."),
		agenttest.TextTurn("Understood."),
	}}, true)
	one := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, one); end.Outcome != "done" {
		t.Fatalf("first run ended %+v", end)
	}
	two := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, two); end.Outcome != "done" {
		t.Fatalf("second run ended %+v", end)
	}
	if res, err := f.ed.Keep(one, nil, nil); err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep the first run = %+v, %v", res, err)
	}
	// The second run's hunk conflicts, and its range is the user's
	// lines of the region: the first run's inserted line.
	var list lsp.PendingList
	f.ed.Await("the second run's hunk in conflict", func() bool {
		if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": two}}, &list); err != nil || len(list.Runs) != 1 {
			return false
		}
		c, err := fake.FileOf(list.Runs[0].Files, "calc.go")
		return err == nil && len(c.Hunks) == 1 && c.Hunks[0].Conflict != ""
	})
	h := list.Runs[0].Files[0].Hunks[0]
	if want := (protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5}}); h.Range != want {
		t.Errorf("the conflicted hunk's range is %+v, want the first run's line %+v", h.Range, want)
	}
	res, err := f.ed.Keep(two, nil, nil)
	if err != nil || len(res.Kept) != 0 || len(res.Left) != 1 || len(res.Resolved) != 0 {
		t.Fatalf("keep without conflicts = %+v, %v; want the hunk left", res, err)
	}
	// The notification after it still has the conflict.
	files := f.ed.AwaitPending(two, "the conflict after the keep", func(fs []lsp.PendingFile) bool {
		return len(fs) == 1 && len(fs[0].Hunks) == 1 && fs[0].Hunks[0].Conflict != ""
	})
	if files[0].Hunks[0].Range != h.Range {
		t.Errorf("the notification's range %+v, want %+v", files[0].Hunks[0].Range, h.Range)
	}
	return f, two, list.Runs[0].Title
}

func TestPendingKeepResolvesConflicts(t *testing.T) {
	kept := strings.Replace(calcGo, "{\n", "{\n\t// one\n", 1)
	for _, c := range []struct {
		as   string
		want func(id, title string) string
		told string
	}{
		{"both", func(string, string) string { return strings.Replace(calcGo, "{\n", "{\n\t// one\n\t// two\n", 1) }, "kept both their lines and hunk 1 of calc.go"},
		{"theirs", func(string, string) string { return kept }, "kept their own text over hunk 1 of calc.go"},
		{"run", func(string, string) string { return strings.Replace(calcGo, "{\n", "{\n\t// two\n", 1) }, "took the run's hunk 1 of calc.go"},
		{"markers", func(id, title string) string {
			return strings.Replace(calcGo, "{\n", fmt.Sprintf("{\n<<<<<<< yours\n\t// one\n=======\n\t// two\n>>>>>>> run %s (%s)\n", id, title), 1)
		}, "wrote conflict markers for hunk 1 of calc.go"},
	} {
		t.Run(c.as, func(t *testing.T) {
			f, two, title := twoInsertions(t)
			before := len(f.ed.AppliedEdits())
			res, err := f.ed.KeepResolving(two, nil, nil, c.as)
			if err != nil || len(res.Kept) != 1 || len(res.Left) != 0 || len(res.Resolved) != 1 || res.Resolved[0].As != c.as || res.Resolved[0].Hunk != res.Kept[0] {
				t.Fatalf("keep resolving %s = %+v, %v", c.as, res, err)
			}
			want := c.want(two, title)
			if got := f.ed.Text(f.uri); got != want {
				t.Errorf("buffer after %s:\n%s\nwant:\n%s", c.as, got, want)
			}
			edits := 1
			if c.as == "theirs" {
				edits = 0
			}
			if n := len(f.ed.AppliedEdits()) - before; n != edits {
				t.Errorf("%d applyEdits for the resolution, want %d", n, edits)
			}
			f.ed.AwaitPending(two, "the conflict cleared", func(fs []lsp.PendingFile) bool { return len(fs) == 0 })
			if said := f.toldAtReply(t, two); !strings.Contains(said, c.told) {
				t.Errorf("the model was not told %q:\n%s", c.told, said)
			}
			// Undo takes back the resolution, and only it.
			if c.as != "theirs" {
				if res := f.undo(t, map[string]string{"runId": two}); !res.Undone {
					t.Fatalf("undo = %+v", res)
				}
				if got := f.ed.Text(f.uri); got != kept {
					t.Errorf("buffer after undoing the second run:\n%s\nwant the first run's line alone:\n%s", got, kept)
				}
			}
		})
	}
}

// An unknown resolution is InvalidParams naming the valid ones, and
// changes nothing.
func TestPendingKeepUnknownResolution(t *testing.T) {
	f, two, _ := twoInsertions(t)
	text := f.ed.Text(f.uri)
	_, err := f.ed.KeepResolving(two, nil, nil, "mine")
	if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(fmt.Sprint(err), "both, theirs, run or markers") {
		t.Errorf("keep resolving mine: %v, want InvalidParams naming both, theirs, run or markers", err)
	}
	if got := f.ed.Text(f.uri); got != text {
		t.Errorf("the refused keep changed the buffer:\n%s", got)
	}
}
