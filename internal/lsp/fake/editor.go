package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lspfeatures"
)

// Options configure the fake editor and the server it starts.
type Options struct {
	// Folders are the workspace folders (absolute directories). None means
	// a single-file session.
	Folders []string
	// InitializationOptions is sent as initializationOptions.
	InitializationOptions any
	// Capabilities, if set, adjusts the client capabilities sent.
	Capabilities func(*protocol.ClientCapabilities)
	// PendingChanges declares capabilities.experimental.catbuddy.
	// pendingChanges: runs then leave their changes pending, reported in
	// catbuddy/pendingChanges (PendingNotes), until Keep or Discard.
	PendingChanges bool
	// Server is passed to lsp.Serve.
	Server lsp.Options
	// NoInitialize leaves the connection uninitialized (for lifecycle tests).
	NoInitialize bool
	// Configuration, if set, is served for workspace/configuration by
	// section (and the capability is declared).
	Configuration map[string]any
	// ClientInfo, if set, is sent as clientInfo (default {name: "fake"}).
	ClientInfo *protocol.ClientInfo
	// Answer, if set, answers window/showMessageRequest (nil: dismissed,
	// as when the user closes the question). Unset: every question is
	// dismissed. Questions are recorded either way (Questions).
	Answer func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem
}

// Notification is one server→client notification the fake received.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Editor is a fake LSP client driving a real cb-ls server.
type Editor struct {
	t    testing.TB
	conn jsonrpc2.Conn
	raw  *loggedConn
	log  *syncLog

	serveErr  chan error
	serveDone chan struct{}
	result    error
	exited    bool

	// InitializeResult is the server's answer to initialize.
	InitializeResult protocol.InitializeResult

	mu       sync.Mutex
	buffers  map[uri.URI]*buffer
	notes    []Notification
	edits    []*protocol.ApplyWorkspaceEditParams
	created  []string // progress tokens
	onApply  ApplyHandler
	changed  chan struct{}
	disk     map[string]bool   // files the fake created on disk for CreateFile
	config   map[string]any    // workspace/configuration answers by section
	diags    DiagnosticsFunc   // catbuddy/diagnostics answers; nil: MethodNotFound
	diagAsks []uri.URI         // catbuddy/diagnostics requests, in order
	diagRaw  []json.RawMessage // their params, as sent
	closedDn bool
	answer   func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	asked    []protocol.ShowMessageRequestParams
	lang     langState   // catbuddy/languageFeature (langfeature.go)
	silent   silentState // requests left unanswered (silent.go)
}

// Questions returns the window/showMessageRequest params received, in order.
func (e *Editor) Questions() []protocol.ShowMessageRequestParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

type buffer struct {
	text    string
	version int32
	lang    string
}

// New starts a server on an in-memory pipe and initializes it (unless
// opts.NoInitialize). The connection is shut down at the end of the test,
// and the JSON-RPC log is printed if the test failed.
func New(t testing.TB, opts Options) *Editor {
	t.Helper()
	clientEnd, serverEnd := net.Pipe()
	e := &Editor{
		t:         t,
		log:       &syncLog{},
		serveErr:  make(chan error, 1),
		serveDone: make(chan struct{}),
		buffers:   map[uri.URI]*buffer{},
		changed:   make(chan struct{}),
		onApply:   Accept,
		disk:      map[string]bool{},
		answer:    opts.Answer,
	}
	go func() {
		e.serveErr <- lsp.Serve(context.Background(), serverEnd, opts.Server)
		close(e.serveDone)
	}()
	e.raw = &loggedConn{Conn: clientEnd, log: e.log, onRead: func() {
		e.mu.Lock()
		e.wake()
		e.mu.Unlock()
	}}
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(e.raw), jsonrpc2.WithCodec(lspfeatures.Codec{}))
	e.conn.Go(context.Background(), e.handle)
	t.Cleanup(func() {
		if !e.exited {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = e.conn.Call(ctx, protocol.MethodShutdown, nil, nil)
			_ = e.conn.Notify(ctx, protocol.MethodExit, nil)
			cancel()
			e.waitServe(5 * time.Second)
		}
		_ = clientEnd.Close()
		if t.Failed() {
			t.Logf("JSON-RPC log (-> editor to server, <- server to editor):\n%s", e.log.String())
		}
	})
	if !opts.NoInitialize {
		e.Initialize(opts)
	}
	return e
}

// Initialize sends initialize and initialized.
func (e *Editor) Initialize(opts Options) {
	e.t.Helper()
	yes := true
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:        &yes,
			WorkspaceFolders: &yes,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
				DocumentChanges:         &yes,
				ResourceOperations:      []protocol.ResourceOperationKind{"create", "rename", "delete"},
				ChangeAnnotationSupport: &protocol.ChangeAnnotationsSupportOptions{GroupsOnLabel: &yes},
			},
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: &yes,
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: true},
		},
		General: &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{"utf-16"}},
	}
	if opts.Configuration != nil {
		caps.Workspace.Configuration = &yes
		e.mu.Lock()
		e.config = opts.Configuration
		e.mu.Unlock()
	}
	if opts.PendingChanges {
		declarePending(&caps)
	}
	if opts.Capabilities != nil {
		opts.Capabilities(&caps)
	}
	var info any = map[string]string{"name": "fake"}
	if opts.ClientInfo != nil {
		info = opts.ClientInfo
	}
	params := map[string]any{"processId": os.Getpid(), "capabilities": caps, "clientInfo": info}
	if opts.InitializationOptions != nil {
		params["initializationOptions"] = opts.InitializationOptions
	}
	if opts.Folders != nil {
		var folders []protocol.WorkspaceFolder
		for _, f := range opts.Folders {
			folders = append(folders, protocol.WorkspaceFolder{URI: fileuri.FromPath(f), Name: filepath.Base(f)})
		}
		params["workspaceFolders"] = folders
	} else {
		params["workspaceFolders"] = nil
	}
	raw, err := protocol.Marshal(params)
	if err != nil {
		e.t.Fatalf("marshal initialize: %v", err)
	}
	if err := e.Call(protocol.MethodInitialize, jsonrpc2.RawMessage(raw), &e.InitializeResult); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.Notify(protocol.MethodInitialized, struct{}{})
}

// Call sends a request and decodes the answer into result (may be nil).
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

// CallCtx is Call with the caller's context; cancelling it sends
// $/cancelRequest for the call.
func (e *Editor) CallCtx(ctx context.Context, method string, params, result any) error {
	return protocol.Call(ctx, e.conn, method, params, result)
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("notify %s: %v", method, err)
	}
}

// WriteRaw writes bytes straight to the server, bypassing framing, for
// malformed-input tests.
func (e *Editor) WriteRaw(b []byte) error {
	_, err := e.raw.Write(b)
	return err
}

// Shutdown sends shutdown and exit and returns what Serve returned.
func (e *Editor) Shutdown() error {
	e.t.Helper()
	if err := e.Call(protocol.MethodShutdown, nil, nil); err != nil {
		e.t.Fatalf("shutdown: %v", err)
	}
	return e.Exit()
}

// Exit sends exit and returns what Serve returned.
func (e *Editor) Exit() error {
	e.t.Helper()
	_ = e.conn.Notify(context.Background(), protocol.MethodExit, nil)
	e.exited = true
	return e.waitServe(5 * time.Second)
}

func (e *Editor) waitServe(d time.Duration) error {
	select {
	case <-e.serveDone:
		e.mu.Lock()
		if !e.closedDn {
			e.closedDn = true
			e.result = <-e.serveErr
		}
		e.mu.Unlock()
		return e.result
	case <-time.After(d):
		e.t.Errorf("server did not stop within %v", d)
		return nil
	}
}

// ServerDone returns a channel closed when Serve has returned.
func (e *Editor) ServerDone() <-chan struct{} { return e.serveDone }

// ExecuteCommand runs workspace/executeCommand with args.
func (e *Editor) ExecuteCommand(command string, args []any, result any) error {
	return e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": args}, result)
}

// RunTool runs catbuddy.runTool and returns its output.
func (e *Editor) RunTool(name string, args any) (output string, isError bool) {
	e.t.Helper()
	var res struct {
		Output  string `json:"output"`
		IsError bool   `json:"is_error"`
	}
	if err := e.ExecuteCommand("catbuddy.runTool", []any{map[string]any{"name": name, "arguments": args}}, &res); err != nil {
		e.t.Fatalf("runTool %s: %v", name, err)
	}
	return res.Output, res.IsError
}

// Await waits until cond holds, re-checking whenever the editor receives
// a message or changes a buffer; it fails the test after 10s.
func (e *Editor) Await(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			e.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// wake re-runs Await conditions; e.mu must be held.
func (e *Editor) wake() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Notifications returns the notifications received for method so far.
func (e *Editor) Notifications(method string) []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []json.RawMessage
	for _, n := range e.notes {
		if n.Method == method {
			out = append(out, n.Params)
		}
	}
	return out
}

// AppliedEdits returns every workspace/applyEdit received so far.
func (e *Editor) AppliedEdits() []*protocol.ApplyWorkspaceEditParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*protocol.ApplyWorkspaceEditParams(nil), e.edits...)
}

// ProgressTokens returns the tokens created with workDoneProgress/create.
func (e *Editor) ProgressTokens() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.created...)
}

// handle answers server→client requests and records notifications.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method()) // borrowed from the frame until we return
	params := json.RawMessage(bytes.Clone(req.Params()))
	if !req.IsCall() {
		if method == protocol.MethodCancelRequest {
			e.cancelRequest(params)
		}
		e.mu.Lock()
		e.notes = append(e.notes, Notification{Method: method, Params: params})
		e.wake()
		e.mu.Unlock()
		return nil, nil
	}
	// Requests may block (a delayed edit), so they leave the read loop.
	jsonrpc2.Async(ctx)
	if f := e.setAnswer(method); f != nil {
		res, err := f()
		if res == nil && err == nil {
			return jsonrpc2.RawMessage("null"), nil
		}
		return res, err
	}
	if e.ignoring(method) {
		e.mu.Lock()
		if method == protocol.MethodWorkspaceApplyEdit {
			var p protocol.ApplyWorkspaceEditParams
			if protocol.Unmarshal(params, &p) == nil {
				e.edits = append(e.edits, &p)
			}
		}
		if method == protocol.MethodWindowShowMessageRequest {
			var p protocol.ShowMessageRequestParams
			if protocol.Unmarshal(params, &p) == nil {
				e.asked = append(e.asked, p)
			}
		}
		e.wake()
		e.mu.Unlock()
		return e.holdUnanswered(ctx, req.ID(), method)
	}
	switch method {
	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			e.t.Errorf("server sent malformed applyEdit: %v\n%s", err, params)
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		e.mu.Lock()
		e.edits = append(e.edits, &p)
		h := e.onApply
		e.wake()
		e.mu.Unlock()
		return h(e, &p), nil
	case protocol.MethodWindowWorkDoneProgressCreate:
		var p protocol.WorkDoneProgressCreateParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		e.mu.Lock()
		e.created = append(e.created, fmt.Sprint(p.Token))
		e.wake()
		e.mu.Unlock()
		return nil, nil
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		e.mu.Lock()
		e.asked = append(e.asked, p)
		answer := e.answer
		e.wake()
		e.mu.Unlock()
		if answer == nil {
			return nil, nil
		}
		if a := answer(&p); a != nil {
			return a, nil
		}
		return nil, nil
	case protocol.MethodWindowShowDocument:
		return &protocol.ShowDocumentResult{Success: true}, nil
	case lsp.MethodDiagnostics:
		return e.answerDiagnostics(params)
	case lsp.MethodLanguageFeature:
		return e.answerLanguageFeature(ctx, req.ID(), params)
	case lsp.MethodFormatText:
		return e.answerFormatText(ctx, params)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if it.Section != nil {
				out[i] = e.config[*it.Section]
			}
		}
		return out, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s", method)
}

// OpenFile opens path with its disk content.
func (e *Editor) OpenFile(path string) uri.URI {
	e.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatalf("open %s: %v", path, err)
	}
	return e.OpenText(path, string(b))
}

// OpenText opens path with text (as if the user typed it unsaved).
func (e *Editor) OpenText(path, text string) uri.URI {
	e.t.Helper()
	u := fileuri.FromPath(path)
	e.mu.Lock()
	e.buffers[u] = &buffer{text: text, version: 1, lang: langOf(path)}
	e.wake()
	e.mu.Unlock()
	e.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageKind(langOf(path)), Version: 1, Text: text},
	})
	return u
}

// CloseFile closes the buffer.
func (e *Editor) CloseFile(u uri.URI) {
	e.t.Helper()
	e.mu.Lock()
	delete(e.buffers, u)
	e.wake()
	e.mu.Unlock()
	e.Notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
}

// Replace replaces the first occurrence of old in the buffer with new, as
// a user would by typing: one incremental didChange.
func (e *Editor) Replace(u uri.URI, old, new string) {
	e.t.Helper()
	text := e.Text(u)
	i := strings.Index(text, old)
	if i < 0 {
		e.t.Fatalf("replace: %q not in %s", old, u)
	}
	e.EditRange(u, Position(text, i), Position(text, i+len(old)), new)
}

// EditRange sends one incremental change replacing [start, end) with text.
func (e *Editor) EditRange(u uri.URI, start, end protocol.Position, text string) {
	e.t.Helper()
	e.mu.Lock()
	b, ok := e.buffers[u]
	if !ok {
		e.mu.Unlock()
		e.t.Fatalf("edit: %s is not open", u)
	}
	s, en := Offset(b.text, start), Offset(b.text, end)
	b.text = b.text[:s] + text + b.text[en:]
	b.version++
	v := b.version
	e.wake()
	e.mu.Unlock()
	e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: start, End: end}, Text: text}},
	})
}

// Text returns the buffer's text.
func (e *Editor) Text(u uri.URI) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.buffers[u]; ok {
		return b.text
	}
	return ""
}

// IsOpen reports whether the buffer is open.
func (e *Editor) IsOpen(u uri.URI) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.buffers[u]
	return ok
}

// Version returns the buffer's version.
func (e *Editor) Version(u uri.URI) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.buffers[u]; ok {
		return b.version
	}
	return -1
}

func langOf(path string) string {
	switch filepath.Ext(path) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	}
	return "plaintext"
}

// editsDescending sorts edits by start, last first, so that applying
// them in order keeps earlier positions valid.
func editsDescending(text string, edits []protocol.TextEdit) []protocol.TextEdit {
	out := append([]protocol.TextEdit(nil), edits...)
	sort.SliceStable(out, func(i, j int) bool {
		return Offset(text, out[i].Range.Start) > Offset(text, out[j].Range.Start)
	})
	return out
}

// syncLog is the JSON-RPC log.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
	in  bytes.Buffer // the server's bytes, unbroken, for searching
}

func (l *syncLog) add(dir string, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.buf, "%s %s\n", dir, p)
	if dir == "<-" {
		l.in.Write(p)
	}
}

func (l *syncLog) received() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.in.String()
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// loggedConn records the bytes on the editor's end of the pipe.
type loggedConn struct {
	net.Conn
	log    *syncLog
	onRead func() // wakes Await: conditions may look at the log
	wmu    sync.Mutex
}

func (c *loggedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.log.add("<-", p[:n])
		c.onRead()
	}
	return n, err
}

func (c *loggedConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.log.add("->", p)
	return c.Conn.Write(p)
}

var _ io.ReadWriteCloser = (*loggedConn)(nil)

// Log returns the JSON-RPC traffic so far, both directions.
func (e *Editor) Log() string { return e.log.String() }

// Received returns every byte the server sent so far, for searching.
func (e *Editor) Received() string { return e.log.received() }
