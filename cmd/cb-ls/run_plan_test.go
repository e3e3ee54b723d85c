package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// cb-ls run shows the model's plan as a checklist each time it changes,
// and the run's transcript keeps it.
func TestRunShowsThePlan(t *testing.T) {
	plan := func(fix string) agenttest.ToolCall {
		return agenttest.Call("update_plan", map[string]any{"plan": []map[string]string{
			{"step": "Read calc.go", "status": "completed"}, {"step": "Fix Add", "status": fix},
		}})
	}
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(plan("in_progress")), agenttest.CallTurn(plan("completed")), agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "anthropic")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--yes", "fix Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		"  plan:\n    - [x] Read calc.go\n    - [ ] **Fix Add** (in progress)\n",
		"  plan:\n    - [x] Read calc.go\n    - [x] Fix Add\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	mds, _ := filepath.Glob(filepath.Join(sessionsOf(t, root), "*.md"))
	if len(mds) != 1 {
		t.Fatalf("transcripts %v, want one", mds)
	}
	md, _ := os.ReadFile(mds[0])
	if !strings.Contains(string(md), "**Plan:**\n\n- [x] Read calc.go\n- [x] Fix Add\n") {
		t.Errorf("the transcript lacks the plan:\n%s", md)
	}
}
