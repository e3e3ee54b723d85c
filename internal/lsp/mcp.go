package lsp

import (
	"context"
	"encoding/json"
	"github.com/catbuddy/cb-ls/internal/config"
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
// initialize on a server.
func (s *Server) startMCP() {
	// A project's HTTP servers may reach hosts the user's own web
	// allow-list opens (their config file and editor settings, never the
	// project's).
	user, err := config.LoadConfig("", s.AgentConfig())
	if err != nil {
		s.log.Warn("MCP: the user's web allow-list", "error", err)
	}
	m := mcp.NewManager(s.registry, mcp.Options{Version: s.version(), Logger: s.log.With("component", "mcp"),
		ProjectTrusted: s.projectTrusted, URLAllow: user.Tools.WebAllow})
	s.mu.Lock()
	s.mcp = m
	s.mu.Unlock()
	m.Start(s.Guard().Roots())
}

// stopMCP stops every MCP server (on shutdown).
func (s *Server) stopMCP() {
	if m := s.mcpManager(); m != nil {
		m.Shutdown()
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mcp
}
