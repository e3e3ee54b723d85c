package lsp

import (
	"context"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The settings that the tools and the guard act on follow the
// configuration as it is now, not as it was at initialize: a project
// trusted (or untrusted) since, or a changed editor setting, applies to
// the next run without a restart. config.Load decides what applies (the
// one merge of every source, trust included); this file only reads it
// when it may have changed.
//
//   - A run's tool options (exec and web_fetch) come from its own
//     configuration: agent.Runner puts them in the run's context.
//   - catbuddy.runTool calls get the primary folder's (toolOptions).
//   - The guard's mode is the connection's, so it follows the primary
//     folder's configuration (syncMode) at initialize, on every change
//     of settings, folders or trust, and when a run starts.

// currentConfig is the editor's settings over the configuration files of
// the primary workspace folder. A malformed file is logged and the
// editor's settings alone are used.
func (s *Server) currentConfig() config.Config {
	cfg := s.AgentConfig()
	roots := s.Guard().Roots()
	if len(roots) == 0 {
		return cfg
	}
	loaded, err := config.LoadConfig(roots[0], cfg)
	if err != nil {
		s.log.Warn("configuration: using the editor's settings only", "root", roots[0], "error", err)
		return cfg
	}
	return loaded
}

// toolOptions are the tool options for a call outside a run.
func (s *Server) toolOptions() tools.Options { return tools.OptionsFrom(s.currentConfig().Tools) }

// withToolOptions gives ctx the tool options of the current configuration.
func (s *Server) withToolOptions(ctx context.Context) context.Context {
	return tools.WithOptions(ctx, s.toolOptions())
}

// syncMode sets the guard's mode from the current configuration: the
// editor's "mode", else the serve --mode flag, else a trusted project's,
// else the user's config file, else auto.
func (s *Server) syncMode() {
	// Next edits follow the same settings (lsp/next_edit.go).
	defer s.nextEdit.refresh()
	cfg := s.currentConfig()
	m, err := guard.ParseMode(cfg.Mode)
	if err != nil {
		s.log.Warn("ignoring mode", "mode", cfg.Mode, "error", err)
		return
	}
	g := s.Guard()
	before := g.Mode()
	if err := g.SetMode(m); err != nil {
		s.log.Warn("mode", "mode", cfg.Mode, "error", err)
		return
	}
	if after := g.Mode(); after != before {
		s.log.Info("mode changed", "from", before.String(), "to", after.String(), "workRoot", g.WorkRoot())
	}
}

// withModeFlag puts serve's --mode below the editor's settings (which
// win over it, as initializationOptions always did) and above the
// configuration files. auto is the flag's default and sets nothing.
func withModeFlag(cfg config.Config, m guard.Mode) config.Config {
	if cfg.Mode == "" && m != guard.ModeAuto {
		cfg.Mode = m.String()
	}
	return cfg
}
