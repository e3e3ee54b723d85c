package app

import (
	"context"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/mcp"
)

// StartMCP starts the MCP servers of the user's mcp.json and of each
// trusted project's .catbuddy/mcp.json (Options.ProjectTrusted) for the
// guard's roots, in the background: their tools join the registry as
// each server becomes ready. settings are the user's own settings above
// their config file (flags, the editor's): a project's HTTP servers may
// reach the hosts the user's web allow-list opens, never the project's.
// Close stops the servers.
func (a *App) StartMCP(settings config.Config) *mcp.Manager {
	user, err := config.LoadConfig("", settings)
	if err != nil {
		a.log.Warn("MCP: the user's web allow-list", "error", err)
	}
	m := mcp.NewManager(a.Registry, mcp.Options{Version: a.opts.Version, Logger: a.log.With("component", "mcp"),
		ProjectTrusted: a.opts.ProjectTrusted, URLAllow: user.Tools.WebAllow, Extra: a.opts.MCPServers})
	a.mu.Lock()
	a.mcp = m
	a.mu.Unlock()
	m.Start(a.Guard.Roots())
	return m
}

// MCP returns the manager StartMCP started, or nil.
func (a *App) MCP() *mcp.Manager {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mcp
}

// WaitMCP waits until every MCP server has started or failed once (one
// that will retry counts as settled: a run does not wait for a broken
// server), or until timeout. A front end whose run starts at once (the
// command line) calls it so that the model is offered the servers' tools
// from its first turn; the editor's servers join while it runs. It
// returns the servers that were not ready.
func (a *App) WaitMCP(ctx context.Context, timeout time.Duration) []mcp.ServerStatus {
	m := a.MCP()
	if m == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_ = m.Wait(ctx, func(s mcp.Status) bool {
		for _, ss := range s.Servers {
			if ss.State == mcp.StateStarting {
				return false
			}
		}
		return true
	})
	var notReady []mcp.ServerStatus
	for _, ss := range m.Status().Servers {
		if ss.State != mcp.StateReady && ss.State != mcp.StateDisabled {
			notReady = append(notReady, ss)
		}
	}
	return notReady
}
