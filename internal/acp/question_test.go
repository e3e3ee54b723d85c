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

// An edit reads the file through the client once before asking (the
// tool's own read), and checks it again only after the user allowed it:
// a buffer the user changed while the question was open is not
// overwritten, and the model is told to read it again.
func TestEditReadsOnceBeforeAskingAndChecksAfter(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("The buffer changed; I will read it again."),
	}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	c.buffers[calc] = calcBuffer
	readsAtQuestion := -1
	c.answer = func(sdk.RequestPermissionRequest) string {
		c.mu.Lock()
		defer c.mu.Unlock()
		readsAtQuestion = c.nReads
		c.buffers[calc] = calcBuffer + "// typed while the question was open\n"
		return "allow"
	}
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "fix Add", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if readsAtQuestion != 2 {
		t.Errorf("%d reads through the client before the question, want 2 (read_file, then edit_file's own)", readsAtQuestion)
	}
	if c.nWrites != 0 {
		t.Errorf("the buffer the user changed meanwhile was overwritten: %q", c.writes[calc])
	}
	res := srv.Requests()[2].ToolResults()
	if len(res) != 2 || !strings.Contains(res[1].Content, "changed in the editor since it was read") {
		t.Errorf("the model was not told: %+v", res)
	}
}

// A prompt cancelled after a model call reports that call's tokens.
func TestCancelledPromptReportsUsage(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		{ToolCalls: []agenttest.ToolCall{agenttest.Call("list_dir", map[string]any{})}, InputTokens: 1200, OutputTokens: 34},
		{Hang: true, Text: "thinking at length"},
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "a\n"})
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	got := promptAsync(t, conn, id, "look around")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := srv.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if res := cancelPrompt(t, conn, id, got); res.Usage == nil || res.Usage.InputTokens != 1200 || res.Usage.OutputTokens != 34 {
		t.Errorf("usage %+v, want 1200 in and 34 out", res.Usage)
	}
}

// An answer to a question that cancel withdrew changes nothing: the
// edit is not written, and the session goes on.
func TestAnswerToWithdrawnQuestion(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("unreachable"),
		agenttest.TextTurn("Still here."),
	}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	asked, withdrawn := make(chan struct{}), make(chan struct{})
	c.answer = func(sdk.RequestPermissionRequest) string {
		close(asked)
		<-withdrawn
		return "allow" // too late: the prompt has ended
	}
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	got := promptAsync(t, conn, id, "fix Add")
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("no question")
	}
	cancelPrompt(t, conn, id, got)
	close(withdrawn)
	c.answer = allow
	if res, err := prompt(t, conn, id, "are you there?", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the next prompt: %v %v", res.StopReason, err)
	}
	if c.nWrites != 0 {
		t.Errorf("the withdrawn edit was written: %q", c.writes[calc])
	}
	if disk, _ := os.ReadFile(calc); string(disk) != calcDisk {
		t.Errorf("the disk changed: %q", disk)
	}
}
