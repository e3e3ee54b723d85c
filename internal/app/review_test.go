package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

const calcSrc = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"

// newPendingApp is an App of a front end that shows change sets.
func newPendingApp(t *testing.T) (*App, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "calc.go"), []byte(calcSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Roots: []string{root}, Mode: guard.ModeAuto, Pending: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, root
}

func editScript(replies ...agenttest.Turn) agenttest.Script {
	return agenttest.Script{Turns: append([]agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "a - b", "new_string": "a + b"})),
		agenttest.TextTurn("Fixed the sign."),
	}, replies...)}
}

// With review pending, a run's edit waits in its change set: the disk
// is unchanged, the model is told so, and a reply carries what the user
// discarded meanwhile.
func TestPendingRunEditsWaitForTheUser(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "copy-on-write layer", info.OverlayReason)
	srv := agenttest.NewServer(t, editScript(agenttest.TextTurn("Understood.")))
	a, root := newPendingApp(t)
	cfg := testConfig(srv)
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{Input: "fix Add"})
	r.Begin()
	res := a.Do(t.Context(), r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "fix Add"}, Input: "fix Add"})
	if res.Err != nil || res.ReviewNote != "" {
		t.Fatalf("turn: %v, note %q", res.Err, res.ReviewNote)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != calcSrc {
		t.Fatalf("the disk changed while pending:\n%s", got)
	}
	told := srv.Requests()[2].ToolResults()
	// No language server is configured: the edit says nothing checks it.
	if len(told) == 0 || told[len(told)-1].Content != "Edited calc.go (+1 -1; line 3): pending the user's review\n\nNote: no language server checks this run's .go files; build to check." {
		t.Fatalf("the model was told %+v", told)
	}
	if r.Changes == nil || len(r.Changes.Files()) != 1 {
		t.Fatalf("the run's set: %v", r.Changes)
	}
	if p := a.Changes.Pending(); len(p) != 1 || p[0].RunID() != r.ID {
		t.Fatalf("the store's pending sets: %v", p)
	}
	if _, err := r.Changes.Discard(changeset.Selection{}); err != nil {
		t.Fatal(err)
	}
	r.Begin()
	if res := a.Do(t.Context(), r, Turn{Config: cfg, Input: "why?"}); res.Err != nil {
		t.Fatal(res.Err)
	}
	last := srv.Requests()[3]
	if !strings.Contains(last.LastUserText(), "discarded hunk 1 of calc.go") {
		t.Errorf("the reply does not carry the discard: %q", last.LastUserText())
	}
}

// Without the copy-on-write layer (the sandbox off here) the run reviews
// before, as ever: the edit lands, and the front end is told why once.
func TestPendingFallsBackWithoutTheLayer(t *testing.T) {
	srv := agenttest.NewServer(t, editScript())
	a, root := newPendingApp(t)
	cfg := testConfig(srv)
	off := false
	cfg.Tools.ExecSandbox = &off
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{Input: "fix Add"})
	r.Begin()
	res := a.Do(t.Context(), r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "fix Add"}, Input: "fix Add"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !strings.Contains(res.ReviewNote, "reviewed before they land") {
		t.Errorf("no note of the fallback: %q", res.ReviewNote)
	}
	if r.Changes != nil {
		t.Errorf("a change set without a layer")
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(got), "a + b") {
		t.Errorf("the edit did not land as before:\n%s", got)
	}
}
