package lsp

import (
	"context"
	"encoding/json"
	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/mcp"
)

// MCP commands (docs/PROTOCOL.md).
const (
	CmdMCPStatus = "catbuddy.mcpStatus"
	CmdMCPReload = "catbuddy.mcpReload"
)

func (s *Server) registerMCPCommands() {
	s.registerCommand(CmdMCPStatus, func(ctx context.Context, args []json.RawMessage) (any, error) {
		m := s.mcpManager()
		if m == nil {
			return mcp.Status{Servers: []mcp.ServerStatus{}}, nil
		}
		return m.Status(), nil
	})
	s.registerCommand(CmdMCPReload, func(ctx context.Context, args []json.RawMessage) (any, error) {
		m := s.mcpManager()
		if m == nil {
			return nil, invalidParams("%s: the server is not initialized", CmdMCPReload)
		}
		// The roots may have changed since (a single-file session adopts
		// its root on the first didOpen); servers start in the background.
		m.SetRoots(s.Guard().Roots())
		return m.Status(), nil
	})
}

// startMCP starts the configured MCP servers in the background; their
// tools join the registry as they become ready. It never blocks
// initialize on a server. A project's HTTP servers may reach the hosts
// the user's own web allow-list opens (their config file and editor
// settings, never the project's).
func (s *Server) startMCP() {
	if a := s.assembly(); a != nil {
		a.StartMCP(s.AgentConfig())
	}
}

// stopMCP stops every MCP server (on shutdown).
func (s *Server) stopMCP() {
	if a := s.assembly(); a != nil {
		a.Close()
	}
}

// mcpRootsChanged re-reads the project MCP configuration for new
// workspace folders.
func (s *Server) mcpRootsChanged() {
	if m := s.mcpManager(); m != nil {
		go m.SetRoots(s.Guard().Roots())
	}
}

func (s *Server) mcpManager() *mcp.Manager {
	if a := s.assembly(); a != nil {
		return a.MCP()
	}
	return nil
}

// assembly returns the connection's app, nil before initialize.
func (s *Server) assembly() *app.App {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.app
}
