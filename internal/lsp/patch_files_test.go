package lsp_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// newFilesPatch creates three files in one apply_patch.
const newFilesPatch = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n" +
	"--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n" +
	"--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"

// TestRunRecordsEveryFileOfAPatch: an apply_patch over three files is
// reported as three files, not as its first one: the tool_result event
// carries every edit (the editor's "done — 3 files changed" counts them)
// and the run's record lists all three.
func TestRunRecordsEveryFileOfAPatch(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": newFilesPatch})),
		agenttest.TextTurn("Created three files."),
	}}, nil)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	var edits []string
	for _, raw := range f.ed.Notifications("catbuddy/runEvent") {
		var ev struct {
			RunID string `json:"runId"`
			Kind  string `json:"kind"`
			Edit  *struct {
				Path string `json:"path"`
			} `json:"edit"`
			Edits []struct {
				Path  string `json:"path"`
				Added int    `json:"added"`
			} `json:"edits"`
		}
		if json.Unmarshal(raw, &ev) != nil || ev.RunID != runID || ev.Kind != "tool_result" {
			continue
		}
		if ev.Edit == nil || ev.Edit.Path != "a.txt" {
			t.Errorf("edit = %+v, want the first file, a.txt", ev.Edit)
		}
		for _, e := range ev.Edits {
			edits = append(edits, e.Path)
		}
	}
	if want := []string{"a.txt", "b.txt", "c.txt"}; !slices.Equal(edits, want) {
		t.Errorf("the tool_result's edits are %q, want %q", edits, want)
	}
	list := listRuns(t, f.ed)
	if len(list) != 1 || !slices.Equal(list[0].Files, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Errorf("listRuns = %+v, want the run with the three files", list)
	}
}
