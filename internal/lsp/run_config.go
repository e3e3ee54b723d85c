package lsp

import (
	"context"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// configTimeout bounds the wait for workspace/configuration: a client
// that never answers must not hold a run back.
const configTimeout = 2 * time.Second

// config returns the agent configuration for a run on u: the server's
// (config files and environment, then initializationOptions and
// didChangeConfiguration) with the client's workspace/configuration
// section "catbuddy", scoped to u, laid over it. The pulled section is
// what VS Code and Neovim keep current, so it is asked for at each run.
// It is requested from an async handler or the run's goroutine, never
// from the read loop, so the client's answer can always arrive.
func (rs *runs) config(ctx context.Context, u uri.URI) config.Config {
	s := rs.s
	cfg := s.AgentConfig()
	caps := s.Capabilities()
	if caps.Workspace == nil || caps.Workspace.Configuration == nil || !*caps.Workspace.Configuration {
		return cfg
	}
	section := "catbuddy"
	item := protocol.ConfigurationItem{Section: &section}
	if u != "" {
		item.ScopeURI = &u
	}
	ctx, cancel := context.WithTimeout(ctx, configTimeout)
	defer cancel()
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{item}})
	if err != nil || len(res) == 0 {
		if err != nil {
			s.log.Debug("workspace/configuration failed; using the known settings", "error", err)
		}
		return cfg
	}
	set, err := s.editorSettings("workspace/configuration", res[0])
	if err != nil {
		s.log.Warn("ignoring the catbuddy section of workspace/configuration", "error", err)
		return cfg
	}
	// Keys travel only through initializationOptions and
	// didChangeConfiguration (clients keep them in secret storage); a key
	// in plain settings is ignored rather than trusted.
	set.APIKey = ""
	return config.Merge(cfg, set)
}
