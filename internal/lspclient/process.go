package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lspfeatures"
)

// server is one started language server: its process and connection,
// what it answered in initialize, and the documents it has open.
type server struct {
	name   string
	cfg    ServerConfig
	log    *slog.Logger
	cmd    *exec.Cmd
	proc   serverProcess
	conn   jsonrpc2.Conn
	stderr *tailBuffer
	exited chan struct{}

	caps     map[string]json.RawMessage // ServerCapabilities by field
	encoding protocol.PositionEncodingKind
	ready    *readiness
	// answered is set once the server answered a question: an error
	// after that is about the question, not the server.
	answered atomic.Bool

	// gate shows one run's view at a time (view.go); viewMu makes the
	// shows of one view one at a time.
	gate   viewGate
	viewMu sync.Mutex

	mu    sync.Mutex
	docs  map[string]*document  // by absolute path
	shown map[string]bool       // files the server has with a view's content
	diags map[uri.URI]published // the last publishDiagnostics of each document
	// versions: the server tags its diagnostics with the version they
	// are of (diagnostics.go).
	versions bool
	// republishes: the server publishes a document's diagnostics after
	// every change, unchanged ones too (pyright; learned from a second
	// identical publish after a change), so a change it has not
	// published for is one it has not finished checking.
	republishes bool
	// diagsNews is closed (and replaced) on every publishDiagnostics.
	diagsNews chan struct{}
	err       error // why the server is unusable (it exited)
}

// start runs cfg.Command in root, confined as conf says, and
// initializes it. ctx bounds the start and the initialize exchange only.
func start(ctx context.Context, name string, cfg ServerConfig, roots []string, conf confinement, log *slog.Logger) (*server, error) {
	if len(cfg.Command) == 0 {
		return nil, fmt.Errorf("language server %s: no command", name)
	}
	s, err := launch(ctx, name, cfg, roots, conf, log)
	if err != nil && s != nil && s.proc.mountsFailed(s.stderr.String()) {
		// Nothing of the server ran: the helper's mounts failed, and
		// from now on the sandbox confines by split grants.
		s, err = launch(ctx, name, cfg, roots, conf, log)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// launch starts the server's process once and initializes it. On a
// failed initialize it returns the server, killed, with the error.
func launch(ctx context.Context, name string, cfg ServerConfig, roots []string, conf confinement, log *slog.Logger) (*server, error) {
	proc, err := serverCommand(name, cfg, roots, conf)
	if err != nil {
		return nil, err
	}
	cmd := proc.cmd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		proc.cleanup()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		proc.cleanup()
		return nil, err
	}
	s := &server{name: name, cfg: cfg, log: log.With("server", name), cmd: cmd, proc: proc, stderr: &tailBuffer{max: 4096},
		exited: make(chan struct{}), docs: map[string]*document{}, shown: map[string]bool{}, diags: map[uri.URI]published{}, diagsNews: make(chan struct{}), ready: newReadiness(),
		republishes: republishesAlways[name] || len(cfg.Command) > 0 && republishesAlways[filepath.Base(cfg.Command[0])]}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		proc.cleanup()
		return nil, fmt.Errorf("start language server %s (%s): %w", name, cfg.Command[0], err)
	}
	go func() {
		err := cmd.Wait()
		proc.cleanup()
		s.mu.Lock()
		if s.err == nil {
			s.err = fmt.Errorf("language server %s %w (%v)%s", name, errExited, err, s.stderr.lastLine())
		}
		s.mu.Unlock()
		close(s.exited)
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipe{stdout, stdin}), jsonrpc2.WithCodec(lspfeatures.Codec{}))
	s.conn.Go(context.Background(), s.handle)
	if err := s.initialize(ctx, roots); err != nil {
		s.kill()
		return s, err
	}
	return s, nil
}

// initialize is the LSP handshake. The capabilities offered are what the
// language tools use, and utf-8 besides utf-16 so a server that can
// avoids the conversion.
func (s *server) initialize(ctx context.Context, roots []string) error {
	folders := make([]map[string]string, len(roots))
	for i, r := range roots {
		folders[i] = map[string]string{"uri": string(fileuri.FromPath(r)), "name": filepath.Base(r)}
	}
	var rootURI any
	if len(roots) > 0 {
		rootURI = fileuri.FromPath(roots[0])
	}
	// A server watches the process that names itself here and exits
	// when it cannot see it (vscode-languageserver's servers: pyright,
	// typescript-language-server). A confined server lives in its own
	// PID namespace, where cb-ls's pid names nothing; it dies with cb-ls
	// anyway (the sandbox's parent-death signal and PID namespace).
	var pid any = os.Getpid()
	if s.proc.sb != nil {
		pid = nil
	}
	yes := true
	params := map[string]any{
		"processId":        pid,
		"clientInfo":       map[string]string{"name": "cb-ls"},
		"rootUri":          rootURI,
		"workspaceFolders": folders,
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			// Work-done progress is how servers say they are loading
			// the project (readiness.go).
			"window": map[string]any{"workDoneProgress": yes},
			"workspace": map[string]any{
				"workspaceFolders": yes, "configuration": yes, "symbol": map[string]any{},
				"workspaceEdit":         map[string]any{"documentChanges": yes},
				"didChangeWatchedFiles": map[string]any{"dynamicRegistration": false},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": yes},
				"definition":         map[string]any{"linkSupport": yes},
				"typeDefinition":     map[string]any{"linkSupport": yes},
				"implementation":     map[string]any{"linkSupport": yes},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": yes},
				"callHierarchy":      map[string]any{},
				"rename":             map[string]any{"prepareSupport": yes},
				"publishDiagnostics": map[string]any{},
				"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{
					"valueSet": []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"}}},
					"isPreferredSupport": yes, "disabledSupport": yes, "dataSupport": yes,
					"resolveSupport": map[string]any{"properties": []string{"edit"}}},
			},
		},
	}
	if s.cfg.InitializationOptions != nil {
		params["initializationOptions"] = s.cfg.InitializationOptions
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := s.call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.caps = res.Capabilities
	s.encoding = protocol.PositionEncodingKindUTF16
	if raw, ok := res.Capabilities["positionEncoding"]; ok {
		var enc string
		if json.Unmarshal(raw, &enc) == nil && enc != "" {
			s.encoding = protocol.PositionEncodingKind(enc)
		}
	}
	if err := s.conn.Notify(ctx, protocol.MethodInitialized, struct{}{}); err != nil {
		return fmt.Errorf("initialize language server %s: %w", s.name, err)
	}
	return nil
}

// call sends a request, cancelling it ($/cancelRequest) when ctx ends,
// and fails at once when the server has exited.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	if err := s.failed(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- protocol.Call(ctx, s.conn, method, params, result) }()
	select {
	case err := <-done:
		var rpcErr *jsonrpc2.Error
		if err == nil || errors.As(err, &rpcErr) || ctx.Err() != nil {
			return err
		}
		// The connection broke: the process is exiting, and its exit
		// status and last words say more than "EOF".
		select {
		case <-s.exited:
			return s.failed()
		case <-time.After(time.Second):
			return err
		}
	case <-s.exited:
		return s.failed()
	}
}

// failed returns why the server cannot answer, or nil.
func (s *server) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// handle answers the server's requests to the client: settings are
// empty, progress tokens are accepted, edits the server wants to make on
// its own are refused (every change goes through the tools' review), and
// diagnostics are kept.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p struct {
			URI         uri.URI         `json:"uri"`
			Version     *int32          `json:"version"`
			Diagnostics json.RawMessage `json:"diagnostics"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			s.published(p.URI, p.Version, p.Diagnostics)
			s.ready.diagnostics()
		}
		return nil, nil
	case protocol.MethodProgress:
		s.ready.progress(json.RawMessage(req.Params()))
		return nil, nil
	case protocol.MethodWindowLogMessage:
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		s.log.Debug("language server log", "message", p.Message)
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		return make([]any, len(p.Items)), nil
	case protocol.MethodWorkspaceApplyEdit:
		return map[string]any{"applied": false, "failureReason": "cb-ls applies language server edits only through its reviewed tools"}, nil
	case protocol.MethodWindowWorkDoneProgressCreate, protocol.MethodClientRegisterCapability,
		protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest:
		return nil, nil
	}
	if req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "cb-ls: %s", req.Method())
	}
	return nil, nil
}

// stop shuts the server down politely, then kills it.
func (s *server) stop(ctx context.Context) {
	if s.failed() == nil {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_ = s.call(sctx, protocol.MethodShutdown, nil, nil)
		_ = s.conn.Notify(sctx, protocol.MethodExit, nil)
		cancel()
	}
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
		s.kill()
	}
	s.mu.Lock()
	if s.err == nil || !errors.Is(s.err, errStopped) {
		s.err = errStopped
	}
	s.mu.Unlock()
	_ = s.conn.Close()
}

var errStopped = errors.New("the language servers were shut down")

// errExited is wrapped by the error of a server whose process ended on
// its own: a crash.
var errExited = errors.New("exited")

func (s *server) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
	}
}

// pipe joins the server's stdout and stdin into one stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error {
	err := p.w.Close()
	if rerr := p.ReadCloser.Close(); err == nil {
		err = rerr
	}
	return err
}

// tailBuffer keeps the last max bytes written: a crashed server's last
// words for the error message.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// String returns what is kept.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lastLine returns ": <last line of stderr>" or "".
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := bytes.TrimSpace(t.buf)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) == 0 {
		return ""
	}
	return ": " + string(b)
}
