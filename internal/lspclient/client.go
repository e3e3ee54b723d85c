package lspclient

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ServerConfig is one entry of the languageServers setting.
type ServerConfig struct {
	// Command is the program and its arguments; it speaks LSP on stdio.
	Command []string `json:"command"`
	// Extensions are the file name endings the server answers for
	// (".go"), with the dot.
	Extensions []string `json:"extensions"`
	// InitializationOptions is sent in initialize as it is.
	InitializationOptions any `json:"initializationOptions,omitempty"`
	// IndexingWait bounds how long a question waits for the server to
	// load its project; zero means Options.IndexingWait.
	IndexingWait time.Duration `json:"-"`
}

// Options configure a Client.
type Options struct {
	// Roots are the workspace folders (absolute); the first is the
	// servers' working directory.
	Roots []string
	// Servers are the configured language servers by name.
	Servers map[string]ServerConfig
	Logger  *slog.Logger
	// Timeout bounds one request; zero means DefaultTimeout.
	Timeout time.Duration
	// StartTimeout bounds a server's start and initialize; zero means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// IndexingWait bounds how long a question waits for a server that
	// is loading its project; zero means DefaultIndexingWait.
	IndexingWait time.Duration
	// NoSandbox starts the servers unconfined, as the user's
	// tools.execSandbox: false does for commands. By default they run
	// in the sandbox where there is one (confine.go).
	NoSandbox bool
	// OnStatus, if set, is told when a server starts, loads its project,
	// becomes ready or is withdrawn: a front end's progress. It must not
	// call the Client.
	OnStatus func(Status)
}

// DefaultTimeout bounds one question: gopls answers references on a
// large module in seconds once loaded; the first question also waits for
// the load.
const DefaultTimeout = 60 * time.Second

// DefaultStartTimeout bounds a server's start and initialize.
const DefaultStartTimeout = 30 * time.Second

// Client is the language servers of one headless session.
type Client struct {
	opts Options
	log  *slog.Logger
	conf confinement // how servers start
	// life ends with Close: it bounds the servers Start starts.
	life context.Context
	end  context.CancelFunc

	mu        sync.Mutex
	started   map[string]*server
	starting  map[string]chan struct{} // closed when the server's start ends
	restarts  map[string]int           // crashes survived by a restart, by server
	withdrawn map[string]error         // servers that cannot answer: not tried again
	closed    bool
}

// New returns a client for opts.Servers; nothing starts until a question
// needs a server. It returns nil when no server is configured.
func New(opts Options) *Client {
	if len(opts.Servers) == 0 {
		return nil
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.IndexingWait <= 0 {
		opts.IndexingWait = DefaultIndexingWait
	}
	life, end := context.WithCancel(context.Background())
	return &Client{opts: opts, log: opts.Logger, conf: confinementOf(opts), life: life, end: end,
		started: map[string]*server{}, starting: map[string]chan struct{}{}, restarts: map[string]int{}, withdrawn: map[string]error{}}
}

// Sandbox says whether the servers run confined, and if not why.
func (c *Client) Sandbox() (confined bool, reason string) {
	if c == nil {
		return false, ""
	}
	return c.conf.confined, c.conf.reason
}

func (c *Client) status(st Status) {
	if c.opts.OnStatus != nil {
		c.opts.OnStatus(st)
	}
}

// Features returns the tools' language features answered by the
// configured servers. They can show a server files before a question
// (tools.LanguageFileLoader): a server answers only from the files of
// its project, and tests often lie outside it.
func (c *Client) Features() tools.LanguageFeatures {
	return features{Features: &lspfeatures.Features{Conn: c}, c: c}
}

type features struct {
	*lspfeatures.Features
	c *Client
}

var _ tools.LanguageFileLoader = features{}

// SameServer implements tools.LanguageFileLoader.
func (f features) SameServer(path, other string) bool {
	n := f.c.serverFor(path)
	return n != "" && n == f.c.serverFor(other)
}

// LoadFiles implements tools.LanguageFileLoader: each file is opened
// (didOpen) with its content on disk, or the run's pending content.
func (f features) LoadFiles(ctx context.Context, paths []string) error {
	for _, p := range paths {
		if err := f.loadFile(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

func (f features) loadFile(ctx context.Context, p string) error {
	s, err := f.c.serverOf(ctx, p)
	if err != nil {
		return err
	}
	leave, deleted, err := f.c.enterView(ctx, s)
	if err != nil {
		return err
	}
	defer leave()
	if s.isShown(p) || slices.Contains(deleted, p) {
		return nil // the view's
	}
	content, err := os.ReadFile(p)
	if err != nil {
		return nil // gone since the scan
	}
	_, err = s.open(ctx, p, content)
	return err
}

// ServerFor names the configured server that answers for path ("gopls"),
// or "" when none does (and for a nil client).
func (c *Client) ServerFor(path string) string {
	if c == nil {
		return ""
	}
	return c.serverFor(path)
}

// serverFor returns the name of the server for path's extension, or "".
func (c *Client) serverFor(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	names := make([]string, 0, len(c.opts.Servers))
	for n := range c.opts.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, e := range c.opts.Servers[n].Extensions {
			if strings.EqualFold(e, ext) || strings.EqualFold("."+strings.TrimPrefix(e, "."), ext) {
				return n
			}
		}
	}
	return ""
}

// serverOf returns the running server for path.
func (c *Client) serverOf(ctx context.Context, path string) (*server, error) {
	name := c.serverFor(path)
	if name == "" {
		return nil, fmt.Errorf("%w: no language server is configured for %s files (the languageServers setting)", tools.ErrNoLanguageServer, filepath.Ext(path))
	}
	return c.get(ctx, name)
}

// Supports implements lspfeatures.Conn. Before a server has started it
// is taken to answer every method of the language tools; afterwards its
// capabilities decide.
func (c *Client) Supports(method, path string) bool {
	var names []string
	if path == "" {
		for n := range c.opts.Servers {
			names = append(names, n)
		}
	} else if n := c.serverFor(path); n != "" {
		names = []string{n}
	}
	for _, n := range names {
		c.mu.Lock()
		s := c.started[n]
		_, gone := c.withdrawn[n]
		c.mu.Unlock()
		if gone {
			continue
		}
		if s == nil {
			if method != protocol.MethodCodeActionResolve && method != protocol.MethodTextDocumentPrepareRename &&
				method != protocol.MethodTextDocumentRangeFormatting {
				return true
			}
			continue
		}
		if s.supports(method) {
			return true
		}
	}
	return false
}

// Open implements lspfeatures.Conn: the server learns the file's content
// (didOpen, or didChange when it changed), and the other files it has
// open are brought up to date with the disk, or with the pending view of
// the run in ctx (view.go).
func (c *Client) Open(ctx context.Context, path string, content []byte) (uri.URI, protocol.PositionEncodingKind, error) {
	s, err := c.serverOf(ctx, path)
	if err != nil {
		return "", "", err
	}
	leave, _, err := c.enterView(ctx, s)
	if err != nil {
		return "", "", err
	}
	defer leave()
	s.refresh(ctx, path)
	u, err := s.open(ctx, path, content)
	return u, s.encoding, err
}

// OpensContent implements lspfeatures.ContentOpener: the servers see
// what Open gives them.
func (c *Client) OpensContent() bool { return true }

// Encoding implements lspfeatures.Conn.
func (c *Client) Encoding(path string) protocol.PositionEncodingKind {
	c.mu.Lock()
	s := c.started[c.serverFor(path)]
	c.mu.Unlock()
	if s == nil {
		return protocol.PositionEncodingKindUTF16
	}
	return s.encoding
}

// Call implements lspfeatures.Conn. A question about the workspace goes
// to every configured server and their arrays are merged. Each server is
// asked under the view of the run in ctx (view.go).
func (c *Client) Call(ctx context.Context, path, method string, params any) (json.RawMessage, error) {
	if path != "" {
		s, err := c.serverOf(ctx, path)
		if err != nil {
			return nil, err
		}
		return c.askInView(ctx, s, path, method, params)
	}
	names := make([]string, 0, len(c.opts.Servers))
	for n := range c.opts.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var merged []json.RawMessage
	var firstErr error
	for _, n := range names {
		s, err := c.get(ctx, n)
		if err == nil && s.supports(method) {
			var raw json.RawMessage
			if raw, err = c.askInView(ctx, s, "", method, params); err == nil {
				var items []json.RawMessage
				if json.Unmarshal(raw, &items) == nil {
					merged = append(merged, items...)
				}
				continue
			}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if merged == nil && firstErr != nil {
		return nil, firstErr
	}
	return json.Marshal(merged)
}

// askInView asks s under the view of the run in ctx.
func (c *Client) askInView(ctx context.Context, s *server, path, method string, params any) (json.RawMessage, error) {
	leave, deleted, err := c.enterView(ctx, s)
	if err != nil {
		return nil, err
	}
	defer leave()
	raw, err := c.ask(ctx, s, path, method, params)
	if err == nil {
		c.noteDeleted(ctx, raw, deleted)
	}
	return raw, err
}

// Close shuts every started server down (shutdown, exit, then a kill
// for one that does not go).
func (c *Client) Close(ctx context.Context) {
	if c == nil {
		return
	}
	c.end()
	c.mu.Lock()
	c.closed = true
	started := c.started
	c.started = map[string]*server{}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range started {
		wg.Go(func() { s.stop(ctx) })
	}
	wg.Wait()
}

// Changed tells the servers that the file at path now holds content (an
// edit the agent made): didChange for a document a server has open,
// didChangeWatchedFiles otherwise. deleted says the file is gone.
func (c *Client) Changed(ctx context.Context, path string, content []byte, deleted bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	s := c.started[c.serverFor(path)]
	c.mu.Unlock()
	if s == nil || s.isShown(path) {
		return // a view's file is brought back to the user's text when no view shows it
	}
	s.changed(ctx, path, content, deleted)
}
