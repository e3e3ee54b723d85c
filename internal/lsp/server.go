package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/complete"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without shutdown first, or the connection ended without either. The
// process should then exit with code 1.
var ErrExitWithoutShutdown = errors.New("exit without shutdown")

// Options configure a Server. The zero value is usable.
type Options struct {
	// Logger receives the server's own logs (never the protocol stream).
	Logger *slog.Logger
	// RegisterTools fills the connection's registry over tc. Nil means
	// tools.RegisterBuiltins. Tests use it to install fakes.
	RegisterTools func(reg *tools.Registry, tc *tools.ToolContext) error
	// Agent holds the agent configuration defaults (from flags, environment
	// and config files); initializationOptions override them.
	Agent config.Config
	// Mode is the default guard mode; the "mode" initializationOption wins.
	Mode guard.Mode
	// EditGrace bounds how long an edit the editor reported as applied may
	// take to show up in the buffer (or on disk). Zero means 2s, which
	// covers Neovim's 150 ms didChange debounce with a wide margin.
	EditGrace time.Duration
	// Version is reported in serverInfo.
	Version string
	// LanguageFeatureTimeout bounds one catbuddy/languageFeature request
	// (a question to the editor's other language servers). Zero means
	// DefaultLanguageFeatureTimeout.
	LanguageFeatureTimeout time.Duration
	// ModelWaitReport is how often a run's progress says how long the
	// model has sent nothing ("waiting for the model (N s)"), once it has
	// been silent that long. Zero means DefaultModelWaitReport.
	ModelWaitReport time.Duration
	// OnRunConfig, if set, sees the editor's settings each run starts
	// from (before the config files): tests check that every setting the
	// editor sends reaches the run.
	OnRunConfig func(config.Config)
}

// CommandHandler runs one workspace/executeCommand. args are the
// command's raw arguments. It runs off the read loop, so it may call the
// client and take long; ctx ends when the client cancels the request or
// the connection closes.
type CommandHandler func(ctx context.Context, args []json.RawMessage) (any, error)

// CodeActionProvider contributes code actions for a textDocument/codeAction
// request; it returns none when it has nothing to offer for params.
type CodeActionProvider func(ctx context.Context, params *protocol.CodeActionParams) []protocol.CommandOrCodeAction

// lifecycle is where the connection is in the LSP lifecycle.
type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// Server is one LSP connection. Construct it with Serve.
type Server struct {
	opts   Options
	log    *slog.Logger
	conn   jsonrpc2.Conn
	client protocol.Client

	guard      *guard.PathGuard
	registry   *tools.Registry
	overlay    *Overlay
	workspace  *Workspace
	toolCtx    *tools.ToolContext // the built-in tools' context, for undo
	fileStates *filestate.FileStates

	// methods and commands are filled before the connection starts and
	// only read afterwards.
	methods      map[string]method
	commands     map[string]CommandHandler
	commandOrder []string
	codeActions  []CodeActionProvider

	exitCh   chan struct{}
	baseCtx  context.Context // the connection's; ends at exit
	exitOnce sync.Once

	mu       sync.Mutex
	state    lifecycle
	folders  []string // workspace folders as the client named them, in order
	single   bool     // no folder: the roots follow the first opened file
	exitOK   bool     // shutdown came before exit
	caps     protocol.ClientCapabilities
	info     protocol.ClientInfo // clientInfo from initialize (lsp/consent.go)
	encoding protocol.PositionEncodingKind
	agentCfg config.Config
	progress map[string]*Progress               // by token, for window/workDoneProgress/cancel
	inflight map[jsonrpc2.ID]context.CancelFunc // async calls, for $/cancelRequest
	app      *app.App                           // the run assembly: tools, MCP, runs (lsp/mcp.go, lsp/run.go)
	// askedTrust records the project states already asked about, so a
	// "Not now" is not asked again on this connection (lsp/trust.go).
	askedTrust map[config.ProjectState]bool
	// invalidShown is the last complaint about invalid settings shown,
	// invalidPending one kept back until initialized (lsp/settings.go).
	invalidShown, invalidPending string
	// completer answers textDocument/inlineCompletion; its Tracker
	// sees every didChange (lsp/inline_completion.go).
	completer *complete.Engine
	// nextEdit suggests the edit after the user's last one
	// (lsp/next_edit.go); it sees every didChange first.
	nextEdit *nextEdits
	// completionErr is the last completion failure shown to the user.
	completionErr string
	// consentTold is set once the user was told that this client applies
	// edits without asking (lsp/consent.go).
	consentTold atomic.Bool
}

func newServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.EditGrace == 0 {
		opts.EditGrace = 2 * time.Second
	}
	g, _ := guard.New(nil, opts.Mode) // no roots yet: every path is refused until initialize
	s := &Server{
		opts:       opts,
		log:        opts.Logger,
		guard:      g,
		registry:   tools.NewRegistry(),
		overlay:    NewOverlay(),
		fileStates: filestate.New(),
		commands:   map[string]CommandHandler{},
		exitCh:     make(chan struct{}),
		encoding:   protocol.PositionEncodingKindUTF16,
		agentCfg:   withModeFlag(opts.Agent, opts.Mode),
		progress:   map[string]*Progress{},
		inflight:   map[jsonrpc2.ID]context.CancelFunc{},
		completer:  complete.NewEngine(opts.Logger),
	}
	s.workspace = &Workspace{server: s, disk: tools.DiskWorkspace{}}
	s.fileStates.SetSeenFunc(s.overlay.IsOpenPath)
	s.methods = s.methodTable()
	s.registerCoreCommands()
	s.registerMCPCommands()
	s.registerStatusCommand()
	s.registerTrustCommands()
	// The run commands (catbuddy.run, fix, cancel, transcript,
	// listCommands) and their code actions; see lsp/run.go.
	s.registerRunCommands()
	// Next edits answer keep and discard of their own runIds.
	s.nextEdit = newNextEdits(s)
	s.nextEdit.register()
	return s
}

// Serve runs an LSP server over rwc until the client exits, the
// connection ends, the client's process dies or ctx is cancelled. It
// returns nil after shutdown+exit and ErrExitWithoutShutdown (or the
// transport error) otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.baseCtx = ctx

	stream := newWireStream(rwc, s.log)
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspfeatures.Codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.conn.Go(ctx, s.handle)

	var err error
	select {
	case <-s.exitCh:
		s.mu.Lock()
		if !s.exitOK {
			err = ErrExitWithoutShutdown
		}
		s.mu.Unlock()
	case <-s.conn.Done():
		err = s.conn.Err()
		s.mu.Lock()
		if err == nil && s.state != stateShutdown {
			err = fmt.Errorf("%w: the client closed the connection", ErrExitWithoutShutdown)
		}
		s.mu.Unlock()
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Cancel every handler first (a pending applyEdit must not hold the
	// close), then close the transport so the reader unblocks.
	cancel()
	_ = rwc.Close()
	select {
	case <-s.conn.Done():
	case <-time.After(2 * time.Second):
		s.log.Warn("connection did not drain within 2s of exit")
	}
	return err
}

// initTools assembles the connection's run machinery (internal/app) over
// the LSP workspace: the registry, the tools' context, and later the MCP
// servers. It runs once, in initialize, when the guard's mode is known.
func (s *Server) initTools() error {
	// No tool options: every call carries its run's in its context
	// (lsp/run_settings.go), so the tools never hold stale settings.
	o := app.Options{Guard: s.Guard(), Workspace: s.workspace, Registry: s.registry,
		Approver: tools.ApproverFunc(s.approveExec), OnEdit: s.onEdit, OnExecChanges: s.onExecChanges,
		Diagnostics: &editorDiagnostics{s: s}, Language: s.languageFeatures(s.opts.LanguageFeatureTimeout), RegisterTools: s.opts.RegisterTools,
		ProjectTrusted: s.projectTrusted, DisplayPath: s.displayPath, Version: s.version(), Logger: s.log,
		// Runs leave their changes pending, shown and kept or discarded
		// through lsp/pending_*.go (review "before" still asks first).
		Pending: true}
	if o.Language == nil {
		// An editor without the catbuddy/languageFeature bridge gets the
		// language tools from the languageServers setting, as headless
		// runs do: cb-ls starts those servers itself, lazily. The set is
		// the one configured at initialize.
		o.LanguageServers = s.currentConfig().LanguageServers
	}
	// The editor's servers see the user's buffers, never a run's pending
	// edits: cb-ls's own check those (app/runview_checks.go), from the
	// configuration at initialize.
	o.RunViewServers = app.RunViewServers(s.currentConfig())
	a, err := app.New(o)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.app = a
	s.toolCtx = a.Tools
	s.mu.Unlock()
	a.Changes.OnChange(s.onPendingChange)
	return nil
}

// Capabilities returns the client's capabilities from initialize.
func (s *Server) Capabilities() protocol.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// Guard returns the connection's PathGuard (its roots follow the
// workspace folders).
func (s *Server) Guard() *guard.PathGuard {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.guard
}

// Registry returns the connection's tool registry.
func (s *Server) Registry() *tools.Registry { return s.registry }

// Overlay returns the editor's open buffers.
func (s *Server) Overlay() *Overlay { return s.overlay }

// Workspace returns the LSP tools.Workspace (reads the overlay, writes
// through workspace/applyEdit).
func (s *Server) Workspace() *Workspace { return s.workspace }

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Client returns the typed client dispatcher for server→client requests.
// Calls that wait for an answer must not run on the read loop.
func (s *Server) Client() protocol.Client { return s.client }

// AgentConfig returns the agent configuration: the Options defaults
// merged with initializationOptions and later configuration changes.
func (s *Server) AgentConfig() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentCfg
}

// SessionFileStates returns the FileStates shared by every
// catbuddy.runTool call on this connection.
func (s *Server) SessionFileStates() *filestate.FileStates { return s.fileStates }

// NewFileStates returns fresh FileStates for one run, seeded with the
// editor: open buffers count as seen (no "not read" warning) but are not
// deduplicated until the model reads them.
func (s *Server) NewFileStates() *filestate.FileStates {
	fs := filestate.New()
	fs.SetSeenFunc(s.overlay.IsOpenPath)
	return fs
}

// PositionEncoding returns the negotiated position encoding.
func (s *Server) PositionEncoding() protocol.PositionEncodingKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.encoding
}

// registerCommand adds an executeCommand handler. It must be called while
// the server is being built (newServer), before the connection starts:
// the command list is announced in the initialize result.
func (s *Server) registerCommand(name string, h CommandHandler) {
	if _, dup := s.commands[name]; dup {
		s.log.Error("command registered twice", "command", name)
		return
	}
	s.commands[name] = h
	s.commandOrder = append(s.commandOrder, name)
}

// addCodeActions adds a provider of code actions. Like registerCommand,
// call it from newServer only.
func (s *Server) addCodeActions(p CodeActionProvider) { s.codeActions = append(s.codeActions, p) }

// requestExit ends Serve.
func (s *Server) requestExit() { s.exitOnce.Do(func() { close(s.exitCh) }) }
