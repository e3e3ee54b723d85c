package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// buildEchoServer builds the test MCP server (internal/mcp/mcptest) and
// returns its path.
func buildEchoServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echoserver")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/catbuddy/cb-ls/internal/mcp/mcptest/echoserver").CombinedOutput()
	if err != nil {
		t.Fatalf("go build echoserver: %v\n%s", err, out)
	}
	return bin
}

// writeMCPConfig writes an mcp.json naming one stdio server.
func writeMCPConfig(t *testing.T, path, name, command string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"` + name + `": {"command": "` + command + `"}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cb-ls run starts the user's MCP servers as the editor does: the model
// is offered their tools from its first turn, a call reaches the server,
// and the server is stopped when the run ends.
func TestRunUsesTheUsersMCPServers(t *testing.T) {
	echo := buildEchoServer(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("mcp_echo_echo", map[string]any{"text": "from the model"})),
		agenttest.TextTurn("The server said it back."),
	}})
	root := runEnv(t, srv, "openai")
	writeMCPConfig(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "mcp.json"), "echo", echo)

	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "say it back"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2\nstderr:\n%s", len(reqs), stderr.String())
	}
	if names := reqs[0].ToolNames(); !slices.Contains(names, "mcp_echo_echo") {
		t.Errorf("the model was not offered the MCP tool; tools: %v", names)
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 || res[0].Content != "echo: from the model" {
		t.Errorf("tool results = %+v, want the server's echo", res)
	}
	if strings.TrimSpace(stdout.String()) != "The server said it back." {
		t.Errorf("stdout %q", stdout.String())
	}
}

// A project's servers start only when the project is trusted (here with
// --trust-project); a server that cannot start is named, and the run goes
// on without its tools.
func TestRunProjectMCPServersNeedTrust(t *testing.T) {
	echo := buildEchoServer(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, trusted := range []bool{false, true} {
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("ok")}})
		root := runEnv(t, srv, "openai")
		writeMCPConfig(t, filepath.Join(root, ".catbuddy", "mcp.json"), "proj", echo)
		writeMCPConfig(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "mcp.json"), "broken", filepath.Join(root, "missing"))
		args := []string{"--root", root, "hello"}
		if trusted {
			args = append([]string{"--trust-project"}, args...)
		}
		var stdout, stderr strings.Builder
		if code := runAgent(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("trusted=%v: exit %d\nstderr:\n%s", trusted, code, stderr.String())
		}
		names := srv.Requests()[0].ToolNames()
		if got := slices.Contains(names, "mcp_proj_echo"); got != trusted {
			t.Errorf("trusted=%v: the project's tool offered = %v (tools %v)", trusted, got, names)
		}
		if !strings.Contains(stderr.String(), `MCP server "broken" is`) || !strings.Contains(stderr.String(), "its tools are missing from this run") {
			t.Errorf("trusted=%v: the failed server is not named:\n%s", trusted, stderr.String())
		}
	}
}
