package lsp

import (
	"context"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// initialize records the client's capabilities and settings, sets the
// guard's roots from the workspace folders and registers the tools.
func (s *Server) initialize(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.InitializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	set, err := s.editorSettings("initializationOptions", p.InitializationOptions)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	mode := s.opts.Mode
	if set.Mode != "" {
		if mode, err = guard.ParseMode(set.Mode); err != nil {
			return nil, invalidParams("initializationOptions: %v", err)
		}
	}
	roots := initialRoots(&p)
	g, err := guard.New(roots, mode)
	if err != nil {
		return nil, invalidParams("workspace folders: %v", err)
	}

	enc := chooseEncoding(p.Capabilities.General)
	s.mu.Lock()
	s.caps = p.Capabilities
	s.info = p.ClientInfo
	s.encoding = enc
	s.guard = g
	s.folders = roots
	s.agentCfg = config.Merge(s.agentCfg, set)
	s.state = stateInitialized
	s.mu.Unlock()
	// The editor's mode is in g already; the configuration files may
	// name one where the editor does not.
	s.syncMode()
	if err := s.initTools(); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
	}
	s.startMCP()
	if p.ProcessID != nil && *p.ProcessID > 0 {
		go s.watchProcess(int(*p.ProcessID))
	}
	s.log.Info("initialized", "client", p.ClientInfo.Name, "roots", g.Roots(), "mode", g.Mode().String(), "encoding", enc)
	return s.initializeResult(enc), nil
}

// initialRoots returns the workspace folders' paths, falling back to
// rootUri and then rootPath, which LSP deprecates but clients older than
// workspace folders (and some minimal ones today) send alone. Non-file
// folders are skipped.
func initialRoots(p *protocol.InitializeParams) []string {
	var roots []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if path, err := fileuri.ToPath(f.URI); err == nil {
				roots = append(roots, path)
			}
		}
		return roots
	}
	//lint:ignore SA1019 the fallback for clients that send no workspaceFolders
	if p.RootURI != nil {
		//lint:ignore SA1019 as above
		if path, err := fileuri.ToPath(*p.RootURI); err == nil {
			return []string{path}
		}
	}
	//lint:ignore SA1019 the fallback for clients older than rootUri
	if rp, ok := p.RootPath.Get(); ok && rp != "" {
		return []string{rp}
	}
	return nil
}

// chooseEncoding answers utf-16 unless the client offers utf-8 and not
// utf-16 at all. Offering utf-16 means another server on the same buffer
// may use it (Neovim warns when encodings differ, VS Code accepts nothing
// else), so utf-16 is the safe answer whenever it is on the list.
func chooseEncoding(g *protocol.GeneralClientCapabilities) protocol.PositionEncodingKind {
	if g == nil || len(g.PositionEncodings) == 0 {
		return protocol.PositionEncodingKindUTF16
	}
	hasUTF8 := false
	for _, e := range g.PositionEncodings {
		switch e {
		case protocol.PositionEncodingKindUTF16:
			return protocol.PositionEncodingKindUTF16
		case protocol.PositionEncodingKindUTF8:
			hasUTF8 = true
		}
	}
	if hasUTF8 {
		return protocol.PositionEncodingKindUTF8
	}
	return protocol.PositionEncodingKindUTF16
}

func (s *Server) initializeResult(enc protocol.PositionEncodingKind) *protocol.InitializeResult {
	t := true
	change := protocol.TextDocumentSyncKindIncremental
	f := false
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: enc,
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &t,
				Change:    &change,
				Save:      &protocol.SaveOptions{IncludeText: &f},
			},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor},
			},
			// Always offered: completions are answered (empty) when the
			// settings leave them off, so enabling them needs no restart.
			InlineCompletionProvider: protocol.Boolean(true),
			ExecuteCommandProvider:   protocol.ExecuteCommandOptions{Commands: append([]string(nil), s.commandOrder...)},
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
					Supported:           &t,
					ChangeNotifications: protocol.Boolean(true),
				},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "cb-ls", Version: protocol.NewOptional(s.version())},
	}
}

func (s *Server) version() string {
	if s.opts.Version == "" {
		return "dev"
	}
	return s.opts.Version
}

// initialized pulls the catbuddy settings (workspace/configuration) when
// the client supports it. It runs off the read loop: it waits for the
// client's answer.
func (s *Server) initialized(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	s.flushInvalid(ctx)
	s.pullConfiguration(ctx)
	s.announcePending(ctx)
	// The question waits for the user: on the connection's context, not
	// this notification's.
	go s.checkTrust(s.baseCtx)
	return nil, nil
}

// pullConfiguration asks for the "catbuddy" section and lays it over the
// agent config. apiKey is ignored from this source (docs/PROTOCOL.md:
// clients keep it in secret storage and send it only in
// initializationOptions or didChangeConfiguration).
func (s *Server) pullConfiguration(ctx context.Context) {
	caps := s.Capabilities()
	if caps.Workspace == nil || caps.Workspace.Configuration == nil || !*caps.Workspace.Configuration {
		return
	}
	section := "catbuddy"
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil || len(res) == 0 {
		s.log.Debug("workspace/configuration", "error", err)
		return
	}
	set, err := s.editorSettings("workspace/configuration", res[0])
	if err != nil {
		s.log.Warn("ignoring catbuddy settings from workspace/configuration", "error", err)
		return
	}
	set.APIKey = ""
	s.mu.Lock()
	s.agentCfg = config.Merge(s.agentCfg, set)
	s.mu.Unlock()
	s.syncMode()
}

// shutdown marks the connection shut down; only exit is accepted after it.
func (s *Server) shutdown(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.exitOK = true
	s.mu.Unlock()
	s.stopMCP()
	return nil, nil
}

// exit ends Serve; the exit code follows from whether shutdown came first.
func (s *Server) exit(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	s.requestExit()
	return nil, nil
}

// watchProcess ends the server when the editor's process is gone, so a
// crashed editor never leaves cb-ls running.
func (s *Server) watchProcess(pid int) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.exitCh:
			return
		case <-t.C:
			if !processAlive(pid) {
				s.log.Warn("the editor process is gone; exiting", "pid", pid)
				s.requestExit()
				return
			}
		}
	}
}
