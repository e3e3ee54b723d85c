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
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// usersText is an editor's diagnostics: its servers see the user's
// buffers, where a run's pending edit never is, so it reports nothing.
type usersText struct{}

func (usersText) Diagnostics(context.Context, string) ([]tools.Diagnostic, error) { return nil, nil }
func (usersText) OpenFiles(context.Context) []string                              { return nil }

// TestPendingEditNoRunViewServer: in the editor with runViewServers
// "auto" and none of its servers on PATH (VS Code's login-shell PATH
// often lacks $(go env GOPATH)/bin), nothing sees a run's pending .go
// edit, and its result says so, rather than taking the editor's
// diagnostics of the user's text for "nothing new". With "off", the
// user's choice, nothing is said.
func TestPendingEditNoRunViewServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no gopls, pyright or typescript-language-server
	const note = "Note: no language server checks this run's .go files; build to check."
	for _, mode := range []string{config.RunViewServersAuto, config.RunViewServersOff} {
		t.Run(mode, func(t *testing.T) {
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
			a, err := New(Options{Roots: []string{root}, Mode: guard.ModeAuto, Pending: true, Diagnostics: usersText{},
				RunViewServers: RunViewServers(config.Config{RunViewServers: mode}), ProjectTrusted: func(string) bool { return true }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(a.Close)
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
				agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return a + totalMark"})),
				agenttest.TextTurn("Done."),
			}})
			cfg := testConfig(srv)
			cmd, _ := config.FindCommand(cfg, config.CommandAsk)
			r := NewRun(root, cmd, session.Header{Input: "break Add"})
			r.Begin()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if res := a.Do(ctx, r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "break Add"}, Input: "break Add"}); res.Err != nil {
				t.Fatalf("turn: %v", res.Err)
			}
			reqs := srv.Requests()
			results := reqs[len(reqs)-1].ToolResults()
			if len(results) != 2 || !strings.Contains(results[1].Content, "pending the user's review") {
				t.Fatalf("tool results %+v, want the read's and the pending edit's", results)
			}
			got := results[1].Content
			if said := strings.Contains(got, note); said != (mode == config.RunViewServersAuto) {
				t.Errorf("runViewServers %q, the edit's result:\n%s\nwant the note %q: %v", mode, got, note, !said)
			}
		})
	}
}
