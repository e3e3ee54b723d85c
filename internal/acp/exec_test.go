package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// A command that wants to write asks first, naming the command, its
// directory and the reason; rejected, it does not run and the model is
// told.
func TestExecAsksBeforeWrite(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "touch made.txt", "write": true, "reason": "create the marker"})),
		agenttest.TextTurn("I could not create it."),
	}})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	c.answer = reject
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "create made.txt", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want 1", len(c.perms))
	}
	q := c.perms[0]
	if q.ToolCall.Kind == nil || *q.ToolCall.Kind != sdk.ToolKindExecute {
		t.Errorf("kind %v, want execute", q.ToolCall.Kind)
	}
	var text string
	for _, ct := range q.ToolCall.Content {
		if ct.Content != nil && ct.Content.Content.Text != nil {
			text += ct.Content.Content.Text.Text
		}
	}
	for _, want := range []string{"touch made.txt", "in " + root, "Reason: create the marker", "change files in the workspace"} {
		if !strings.Contains(text, want) {
			t.Errorf("question %q lacks %q", text, want)
		}
	}
	names := []string{}
	for _, o := range q.Options {
		names = append(names, o.Name+"/"+string(o.Kind))
	}
	if got := strings.Join(names, ", "); got != `Run/allow_once, Always allow "touch"/allow_always, Reject/reject_once` {
		t.Errorf("options %s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	res := srv.Requests()[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "the user rejected running this command") {
		t.Errorf("the model was not told: %+v", res)
	}
}

// session/cancel during a model request ends the prompt with cancelled.
func TestCancelDuringModelRequest(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Hang: true, Text: "thinking about it at length"}}})
	root := env(t, srv, "anthropic", nil)
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	got := promptAsync(t, conn, id, "explain everything")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if res := cancelPrompt(t, conn, id, got); res.Usage != nil {
		t.Errorf("usage %+v for a turn no model call of which ended, want none", *res.Usage)
	}
}

// session/cancel while a command runs kills it and ends the prompt.
func TestCancelDuringCommand(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "echo started > started.txt; sleep 60", "write": true})),
		agenttest.TextTurn("unreachable"),
	}})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	c.answer = allow
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	got := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := prompt(t, conn, id, "run the slow thing", "")
		if err != nil {
			t.Errorf("session/prompt: %v", err)
		}
		got <- res
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(root, "started.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never started; questions %d", len(c.perms))
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-got:
		if res.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stopReason %q, want cancelled", res.StopReason)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if waited := time.Since(start); waited > 15*time.Second {
		t.Errorf("the prompt ended %v after the cancel: the command was not stopped", waited)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests after the cancel, want only the first", n)
	}
}
