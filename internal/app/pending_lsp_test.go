package app

import (
	"context"
	"encoding/json"
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

// pendingProject is a small module: calc.go defines Add, use.go and
// other.go call it.
var pendingProject = map[string]string{
	"go.mod":   "module example.com/calc\n\ngo 1.22\n",
	"calc.go":  "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n",
	"use.go":   "package calc\n\n// Use adds.\nfunc Use() int { return Add(1, 2) }\n",
	"other.go": "package calc\n\n// Other adds too.\nfunc Other() int { return Add(3, 4) }\n",
}

// TestPendingViewReachesTheLanguageServer: a run whose changes are
// pending asks real gopls about its own view. Its edit adds Twice to
// calc.go and a call of it to use.go, and it deletes other.go with a
// command: references and definition find Twice where only the run's
// view has it, the answer about Add notes that the run deleted
// other.go, the user's disk is untouched, and a question outside the
// run sees the user's text again.
func TestPendingViewReachesTheLanguageServer(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "copy-on-write layer", info.OverlayReason)
	gopls := testenv.NeedsTool(t, "gopls", "the pending view's language server test", "PATH=\"$(bash scripts/get-gopls.sh):$PATH\"")
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
			"new_string": "func Add(a, b int) int { return a + b }\n\n// Twice returns x + x.\nfunc Twice(x int) int { return Add(x, x) }"})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": "use.go"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "use.go", "old_string": "return Add(1, 2)", "new_string": "return Twice(1) + Add(1, 2)"})),
		agenttest.CallTurn(call("exec", map[string]any{"command": "rm other.go", "write": true, "reason": "drop Other"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 7, "symbol": "Twice"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "definition", "path": "use.go", "line": 4, "symbol": "Twice"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})),
		agenttest.TextTurn("Added Twice."),
	}})
	cfg := testConfig(srv)
	cfg.MaxSteps = 20
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{Input: "add Twice"})
	r.Begin()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	res := a.Do(ctx, r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "add Twice"}, Input: "add Twice"})
	if res.Err != nil || res.ReviewNote != "" {
		t.Fatalf("turn: %v, note %q", res.Err, res.ReviewNote)
	}
	reqs := srv.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 8 {
		t.Fatalf("%d tool results: %+v", len(results), results)
	}
	for i, r := range results {
		t.Logf("result %d:\n%s", i, r.Content)
	}
	if !strings.Contains(results[4].Content, "deleted other.go") {
		t.Fatalf("the command's deletion is not pending: %s", results[4].Content)
	}
	refs, def, adds := results[5].Content, results[6].Content, results[7].Content
	if !strings.Contains(refs, "use.go:4: func Use() int { return Twice(1) + Add(1, 2) }") {
		t.Errorf("references of Twice miss the pending call in use.go:\n%s", refs)
	}
	if !strings.Contains(def, "calc.go:7: func Twice(x int) int { return Add(x, x) }") {
		t.Errorf("definition of Twice is not the pending one:\n%s", def)
	}
	for _, want := range []string{"calc.go:7: func Twice", "use.go:4:", "this run deleted other.go"} {
		if !strings.Contains(adds, want) {
			t.Errorf("references of Add lack %q:\n%s", want, adds)
		}
	}
	for name, text := range pendingProject {
		if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != text {
			t.Errorf("the user's %s changed while pending (%v):\n%s", name, err, got)
		}
	}

	// Outside the run the server answers about the user's text again:
	// calc.go has four lines, and nothing calls Add at line 7.
	raw, _ := json.Marshal(map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})
	out, err := a.Registry.Execute(ctx, "lsp", raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("references outside the run:\n%s", out.Output)
	if strings.Contains(out.Output, "calc.go:7") || strings.Contains(out.Output, "Twice") || !strings.Contains(out.Output, "other.go:4:") ||
		strings.Contains(out.Output, "deleted") {
		t.Errorf("a question outside the run sees the run's view:\n%s", out.Output)
	}
}
