package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/tools"
)

const testKey = "sk-app-test-SECRET-0123456789"

func testConfig(srv *agenttest.Server) config.Config {
	return config.Config{Provider: "openai", Model: "scripted", BaseURL: srv.URL(), APIKey: testKey, MaxSteps: 5}
}

// newTestApp is an App over a disk workspace holding calc.go.
func newTestApp(t *testing.T) (*App, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "calc.go"), []byte("package calc\n\nfunc Add(a, b int) int { return a - b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Roots: []string{root}, Mode: guard.ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, root
}

// A first turn and a reply: the agent works through the App's registry,
// every event reaches the front end, the conversation is stored and the
// transcript holds both turns, without the key; a stored run resumes.
func TestRunTurnsAreStoredAndResume(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "a - b", "new_string": "a + b"})),
		agenttest.TextTurn("Fixed the sign."),
		agenttest.TextTurn("It now adds; key " + testKey + " echoed."),
	}})
	a, root := newTestApp(t)
	cfg := testConfig(srv)
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{Input: "fix Add", Model: cfg.Model})
	if r.Begin() != 1 || r.ID == "" || r.Log == nil {
		t.Fatalf("new run: turn %d id %q log %v", r.Turn, r.ID, r.Log)
	}
	var kinds []agent.EventKind
	res := a.Do(t.Context(), r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "fix Add"}, Input: "fix Add",
		Emit: func(ev agent.Event) { kinds = append(kinds, ev.Kind) }})
	if res.Err != nil || res.Status != "done" || res.Answer != "Fixed the sign." {
		t.Fatalf("first turn: %+v", res)
	}
	if !res.Stored || res.TranscriptErr != nil || len(res.Record.Files) != 1 || res.Record.Files[0] != "calc.go" {
		t.Errorf("first turn stored %v (%v), transcript %v, files %v", res.Stored, res.StoreErr, res.TranscriptErr, res.Record.Files)
	}
	if len(kinds) == 0 || kinds[0] != agent.EventStart {
		t.Errorf("events %v", kinds)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(got), "a + b") {
		t.Errorf("calc.go not edited through the registry: %s", got)
	}

	// After a restart: the stored run resumes with its conversation.
	path, err := session.Find([]string{root}, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := session.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	again := ResumeRun(sess)
	if again.Begin() != 2 || len(again.Messages) != len(r.Messages) {
		t.Fatalf("resumed: turn %d, %d messages, want 2 and %d", again.Turn, len(again.Messages), len(r.Messages))
	}
	res = a.Do(t.Context(), again, Turn{Config: cfg, Input: "does it add now?"})
	if res.Err != nil || !res.Stored {
		t.Fatalf("reply: %+v", res)
	}
	if last := srv.Requests()[len(srv.Requests())-1].LastUserText(); !strings.Contains(last, "does it add now?") {
		t.Errorf("the reply did not reach the model: %q", last)
	}
	md, err := os.ReadFile(res.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fix Add", "Fixed the sign.", "reply 1", "does it add now?", "[redacted]"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("transcript lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), testKey) {
		t.Error("the transcript holds the key")
	}
	if sess, err := session.Load(path); err != nil || sess.Turns != 2 {
		t.Errorf("stored turns = %v (%v), want 2", sess, err)
	}
}

// A turn refused before the model was asked stores nothing: there is no
// conversation to continue.
func TestRefusedTurnStoresNothing(t *testing.T) {
	a, root := newTestApp(t)
	r := NewRun(root, config.Command{ID: "nope", Title: "Nope"}, session.Header{})
	r.Begin()
	res := a.Do(t.Context(), r, Turn{Config: config.Config{Provider: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"},
		Task: agent.Task{Command: "nope"}})
	if res.Err == nil || res.Status != "error" || res.Stored || res.TranscriptPath != "" {
		t.Errorf("refused turn: %+v", res)
	}
	if dir, _ := session.DirOf(root); dir == "" {
		t.Error("no sessions directory for the folder")
	} else if _, err := os.Stat(dir); err == nil {
		t.Error("a refused turn created the sessions directory")
	}
}

// A cancelled turn says so, with the cause, and is stored as far as it got.
func TestCancelledTurn(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("never"),
	}})
	a, root := newTestApp(t)
	cfg := testConfig(srv)
	cmd, _ := config.FindCommand(cfg, config.CommandAsk)
	r := NewRun(root, cmd, session.Header{})
	r.Begin()
	ctx, cancel := context.WithCancelCause(t.Context())
	res := a.Do(ctx, r, Turn{Config: cfg, Task: agent.Task{Command: cmd.ID, Input: "go"}, Input: "go",
		Emit: func(ev agent.Event) {
			if ev.Kind == agent.EventToolResult {
				cancel(errStopped)
			}
		}})
	if res.Status != "cancelled" || res.Err != errStopped || res.Record.Outcome != "cancelled" || !res.Stored {
		t.Errorf("cancelled turn: status %q err %v record %+v stored %v", res.Status, res.Err, res.Record, res.Stored)
	}
}

var errStopped = &stopErr{}

type stopErr struct{}

func (*stopErr) Error() string { return "stopped by the test" }

// Without an Approver nobody can be asked, and a command that needs
// approval is refused with a reason the model can read.
func TestNoApproverRefuses(t *testing.T) {
	a, _ := newTestApp(t)
	d, err := a.Tools.Approver.Approve(t.Context(), tools.ApprovalRequest{Command: "rm -rf build"})
	if d != tools.Rejected || err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("decision %v, %v", d, err)
	}
}
