// Package mcp connects to external MCP servers and registers their tools
// in the tool Registry as mcp_<server>_<tool>.
package mcp
