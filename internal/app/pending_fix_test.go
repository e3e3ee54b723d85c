package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestPendingFixFromTheServer: headless, a run's pending edit calls an
// undefined halve; code_action on its line offers gopls's quick fix for
// that error (asked with gopls's diagnostics, at the error's range), and
// applying it lands pending: the run's calc.go gets the new function,
// the user's stays as it was. The started gopls is listed with its
// memory.
func TestPendingFixFromTheServer(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "copy-on-write layer", info.OverlayReason)
	gopls := testenv.NeedsTool(t, "gopls", "the pending quick fix test", "PATH=\"$(bash scripts/get-gopls.sh):$PATH\"")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range pendingProject {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	servers := map[string]config.LanguageServer{"gopls": {Command: []string{gopls}, Extensions: []string{".go"}, IndexingWait: 120}}
	a, err := New(Options{Roots: []string{root}, Mode: guard.ModeAuto, Pending: true, LanguageServers: servers,
		ProjectTrusted: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	call := agenttest.Call
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "calc.go", "old_string": "func Add(a, b int) int { return a + b }",
			"new_string": "func Add(a, b int) int { return a + b }\n\n// Half halves.\nfunc Half(x int) int { return halve(x) }"})),
		agenttest.CallTurn(call("code_action", map[string]any{"path": "calc.go", "line": 7})),
		agenttest.CallTurn(call("code_action", map[string]any{"path": "calc.go", "line": 7, "title": "Create function halve"})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("Added Half."),
	}})
	cfg := testConfig(srv)
	cfg.MaxSteps = 20
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{Input: "add Half"})
	r.Begin()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	res := a.Do(ctx, r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "add Half"}, Input: "add Half"})
	if res.Err != nil || res.ReviewNote != "" {
		t.Fatalf("turn: %v, note %q", res.Err, res.ReviewNote)
	}
	reqs := srv.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 5 {
		t.Fatalf("%d tool results: %+v", len(results), results)
	}
	for i, r := range results {
		t.Logf("result %d:\n%s", i, r.Content)
	}
	if !strings.Contains(results[1].Content, "undefined: halve") {
		t.Errorf("the edit does not name gopls's new error:\n%s", results[1].Content)
	}
	if !strings.Contains(results[2].Content, "- Create function halve [quickfix]") {
		t.Errorf("code_action does not offer gopls's fix for the new error:\n%s", results[2].Content)
	}
	if !strings.Contains(results[3].Content, "Edited calc.go") || !strings.Contains(results[3].Content, "pending the user's review") {
		t.Errorf("applying the fix:\n%s", results[3].Content)
	}
	if !strings.Contains(results[4].Content, "func halve(x int) int {") {
		t.Errorf("the run's calc.go lacks the fix's function:\n%s", results[4].Content)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != pendingProject["calc.go"] {
		t.Errorf("the user's calc.go changed while pending:\n%s", got)
	}
	procs := a.LanguageServers()
	if len(procs) != 1 || procs[0].Server != "gopls" || procs[0].PID <= 0 {
		t.Fatalf("processes %+v, want gopls", procs)
	}
	if _, err := os.Stat("/proc/self/status"); err == nil && procs[0].RSS <= 0 {
		t.Errorf("gopls's memory is unknown on Linux: %+v", procs[0])
	}
	t.Logf("%s", procs[0])
}
