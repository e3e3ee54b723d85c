package mcp

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv makes the test binary act as an MCP server on stdio.
const serverEnv = "CB_LS_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		fmt.Fprintln(os.Stderr, "test server starting") // must reach our log, not the protocol
		if err := newTestServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			log.Printf("test server: %v", err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

type empty struct{}

// newTestServer builds the server used over stdio and HTTP: echo, pid,
// image (non-text content), fail (an MCP tool error), crash (the process
// dies), slow (outlives the call timeout) and grow (adds a tool, which
// sends tools/list_changed).
func newTestServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "cb-ls-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text."},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process id."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "A picture and a caption."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a caption"},
				&sdk.ImageContent{Data: []byte("\x89PNG...."), MIMEType: "image/png"},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "whereami", Description: "The server's working directory and whether the client offered roots."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			caps := req.Session.InitializeParams().Capabilities
			//lint:ignore SA1019 the test checks that cb-ls does not offer the deprecated roots
			offered := caps != nil && caps.RootsV2 != nil
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("cwd=%s roots=%v", wd, offered)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the widget is broken")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Kills the server."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Waits for cancellation."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool 'added'."},
		func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "added", Description: "Added at run time."},
				func(ctx context.Context, req *sdk.CallToolRequest, in empty) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new tool works"}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
	return s
}
