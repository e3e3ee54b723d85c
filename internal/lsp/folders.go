package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// didChangeWorkspaceFolders updates the guard's roots live: tools read the
// boundary at call time, so a removed folder is refused from the next
// tool call on.
func (s *Server) didChangeWorkspaceFolders(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	folders := slices.Clone(s.folders)
	g := s.guard
	s.mu.Unlock()
	for _, f := range p.Event.Removed {
		if path, err := fileuri.ToPath(f.URI); err == nil {
			folders = slices.DeleteFunc(folders, func(x string) bool { return x == path })
		}
	}
	for _, f := range p.Event.Added {
		path, err := fileuri.ToPath(f.URI)
		if err != nil {
			s.log.Warn("ignoring workspace folder", "uri", f.URI, "error", err)
			continue
		}
		if !slices.Contains(folders, path) {
			folders = append(folders, path)
		}
	}
	if err := g.SetRoots(folders); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.folders = folders
	s.single = false
	s.mu.Unlock()
	s.log.Info("workspace folders changed", "roots", g.Roots())
	s.syncMode()
	s.mcpRootsChanged()
	s.pendingRootsChanged()
	go s.checkTrust(s.baseCtx)
	return nil, nil
}

// didChangeConfiguration lays settings.catbuddy over the agent config.
// The guard's mode is fixed for the connection (tools hold the guard),
// so a changed mode takes effect at the next start; that is logged.
func (s *Server) didChangeConfiguration(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.DidChangeConfigurationParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	section, err := catbuddySection(p.Settings)
	if err != nil {
		return nil, err
	}
	if section == nil {
		// The pull model (VS Code sends settings: null): ask, off the read
		// loop, on the connection's context (this request's is recycled).
		go s.pullConfiguration(s.baseCtx)
		return nil, nil
	}
	set, err := s.editorSettings("didChangeConfiguration", section)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	s.mu.Lock()
	s.agentCfg = config.Merge(s.agentCfg, set)
	s.mu.Unlock()
	s.syncMode()
	return nil, nil
}
