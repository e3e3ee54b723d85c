package acp_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// The client's mcpServers are started for the session: the model is
// offered their tools from the first prompt and a call reaches the server.
func TestClientMCPServersStartForTheSession(t *testing.T) {
	echo := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", echo, "github.com/catbuddy/cb-ls/internal/mcp/mcptest/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build echoserver: %v\n%s", err, out)
	}
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("mcp_echo_echo", map[string]any{"text": "from the model"})),
		agenttest.TextTurn("It said it back."),
	}})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "echo", Command: echo, Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := prompt(t, conn, res.SessionId, "say it back", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if names := reqs[0].ToolNames(); !slices.Contains(names, "mcp_echo_echo") {
		t.Errorf("the model was not offered the client's MCP tool: %v", names)
	}
	if r := reqs[1].ToolResults(); len(r) != 1 || r[0].Content != "echo: from the model" {
		t.Errorf("tool results %+v", r)
	}

	// SSE is not offered, and a session asking for it is refused clearly.
	_, err = conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{
		{Sse: &sdk.McpServerSseInline{Name: "old", Url: "http://127.0.0.1:9/sse", Headers: []sdk.HttpHeader{}, Type: "sse"}},
	}})
	if err == nil {
		t.Error("an SSE MCP server was accepted")
	}
}
