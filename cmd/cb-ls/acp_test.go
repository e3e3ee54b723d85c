package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// replayClient records what the agent streams; it offers no fs and
// answers no question (none is expected).
type replayClient struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
}

func (c *replayClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	return nil
}

func (c *replayClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errors.New("no question expected")
}
func (c *replayClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("fs was not offered")
}
func (c *replayClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("fs was not offered")
}
func (c *replayClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no terminals")
}
func (c *replayClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no terminals")
}
func (c *replayClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no terminals")
}
func (c *replayClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no terminals")
}
func (c *replayClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no terminals")
}

// startACP runs `cb-ls acp` on a pipe and connects c to it.
func startACP(t *testing.T, c sdk.Client) *sdk.ClientSideConnection {
	t.Helper()
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- acpServe(ctx, nil, agentIn, agentOut, &stderr)
		agentOut.Close()
	}()
	t.Cleanup(func() {
		toAgent.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("cb-ls acp exited %d\n%s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("cb-ls acp did not stop when the client went away")
		}
	})
	conn := sdk.NewClientSideConnection(c, toAgent, fromAgent)
	if _, err := conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

// A run started headless is listed, loaded (its conversation replayed)
// and continued from an ACP client, and the reply lands in the same
// stored run.
func TestACPLoadsHeadlessRun(t *testing.T) {
	script := fixScript()
	script.Turns = append(script.Turns, agenttest.TextTurn("It adds now."))
	srv := agenttest.NewServer(t, script)
	root := runEnv(t, srv, "openai")
	root, _ = filepath.EvalSymlinks(root)
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--yes", "fix Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("cb-ls run exited %d\n%s", code, stderr.String())
	}

	c := &replayClient{}
	conn := startACP(t, c)
	cwd := root
	list, err := conn.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].Cwd != root || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "fix Add" {
		t.Fatalf("session/list = %+v, want the headless run", list.Sessions)
	}
	id := list.Sessions[0].SessionId
	if _, err := conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	c.mu.Lock()
	var user, agentText []string
	tools := 0
	for _, u := range c.updates {
		switch {
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			user = append(user, u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			agentText = append(agentText, u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			tools++
		}
	}
	c.mu.Unlock()
	if len(user) == 0 || !strings.Contains(user[0], "fix Add") {
		t.Errorf("replayed user messages %q lack the instruction", user)
	}
	if !strings.Contains(strings.Join(agentText, ""), "Fixed: Add subtracted instead of adding.") {
		t.Errorf("replayed agent text %q lacks the answer", agentText)
	}
	if tools != 2 {
		t.Errorf("%d tool calls replayed, want 2 (read_file, edit_file)", tools)
	}

	res, err := conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("does it add now?")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %v %v", res.StopReason, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	var history []string
	for _, m := range reqs[3].Messages() {
		history = append(history, m.Role+": "+m.Text)
	}
	joined := strings.Join(history, "\n")
	if !strings.Contains(joined, "Fixed: Add subtracted instead of adding.") || !strings.Contains(joined, "does it add now?") {
		t.Errorf("the reply did not continue the headless conversation:\n%s", joined)
	}
	list, err = conn.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id {
		t.Errorf("after the reply session/list = %+v, %v: want the same single run", list.Sessions, err)
	}
}
