// Command echoserver is a stdio MCP server for tests of the front ends:
// its one tool, echo, answers "echo: <text>". Tests build it with go
// build and name it in an mcp.json, as a user names a real server.
package main

import (
	"context"
	"log"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "cb-ls-echo", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text."},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Fatalf("echoserver: %v", err)
	}
}
