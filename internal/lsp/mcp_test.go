package lsp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/mcp"
)

// TestMCPStatusAndReload starts a workspace whose .catbuddy/mcp.json
// names an HTTP MCP server on 127.0.0.1: its tools join the registry,
// catbuddy.mcpStatus shows them, and catbuddy.mcpReload drops them once
// the server is removed from the configuration.
func TestMCPStatusAndReload(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user configuration
	server := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echo."},
		func(ctx context.Context, req *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Text}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close) // after the editor's shutdown (cleanups run last-in first-out)

	dir := writeTree(t, "-- main.go --\npackage main\n")
	cfgPath := filepath.Join(dir, ".catbuddy", "mcp.json")
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"web": map[string]any{"url": srv.URL}}})
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}

	// The project is trusted when asked, and the user's settings allow
	// its server's loopback address.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
		InitializationOptions: map[string]any{"tools": map[string]any{"webAllow": []string{strings.TrimPrefix(srv.URL, "http://")}}},
		Answer: func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
			return &protocol.MessageActionItem{Title: "Trust"}
		}})
	var st mcp.Status
	e.Await("the MCP server's tools", func() bool {
		if err := e.ExecuteCommand(lsp.CmdMCPStatus, nil, &st); err != nil {
			t.Fatalf("%s: %v", lsp.CmdMCPStatus, err)
		}
		return len(st.Servers) == 1 && st.Servers[0].State == mcp.StateReady && len(st.Servers[0].Tools) == 1
	})
	if got := st.Servers[0].Tools[0].Name; got != "mcp_web_echo" {
		t.Errorf("tool name = %q", got)
	}
	if out, isErr := e.RunTool("mcp_web_echo", map[string]string{"text": "hi"}); isErr || out != "echo: hi" {
		t.Errorf("mcp_web_echo = %q, %v", out, isErr)
	}

	if err := os.WriteFile(cfgPath, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.ExecuteCommand(lsp.CmdMCPReload, nil, &st); err != nil {
		t.Fatalf("%s: %v", lsp.CmdMCPReload, err)
	}
	if len(st.Servers) != 0 {
		t.Errorf("servers after reload = %+v", st.Servers)
	}
	if out, isErr := e.RunTool("mcp_web_echo", map[string]string{"text": "hi"}); !isErr {
		t.Errorf("the removed server's tool still runs: %q", out)
	}
}
