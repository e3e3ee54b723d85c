package lspclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
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

	mu      sync.Mutex
	started map[string]*server
	failed  map[string]error // servers that could not start: not tried again
	closed  bool
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
	return &Client{opts: opts, log: opts.Logger, started: map[string]*server{}, failed: map[string]error{}}
}

// Features returns the tools' language features answered by the
// configured servers.
func (c *Client) Features() tools.LanguageFeatures {
	return &lspfeatures.Features{Conn: c}
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

// get returns the running server called name, starting it if needed.
func (c *Client) get(ctx context.Context, name string) (*server, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errStopped
	}
	if s := c.started[name]; s != nil {
		if err := s.failed(); err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := c.failed[name]; err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	c.log.Info("starting language server", "server", name, "command", c.opts.Servers[name].Command)
	s, err := start(sctx, name, c.opts.Servers[name], c.opts.Roots, c.log)
	if err != nil {
		if ctx.Err() == nil {
			c.failed[name] = err
		}
		return nil, err
	}
	c.started[name] = s
	return s, nil
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
		c.mu.Unlock()
		if s == nil {
			if method != protocol.MethodCodeActionResolve && method != protocol.MethodTextDocumentPrepareRename {
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
// open are brought up to date with the disk.
func (c *Client) Open(ctx context.Context, path string, content []byte) (uri.URI, protocol.PositionEncodingKind, error) {
	s, err := c.serverOf(ctx, path)
	if err != nil {
		return "", "", err
	}
	s.refresh(ctx, path)
	u, err := s.open(ctx, path, content)
	return u, s.encoding, err
}

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
// to every configured server and their arrays are merged.
func (c *Client) Call(ctx context.Context, path, method string, params any) (json.RawMessage, error) {
	if path != "" {
		s, err := c.serverOf(ctx, path)
		if err != nil {
			return nil, err
		}
		return c.callOne(ctx, s, method, params)
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
			if raw, err = c.callOne(ctx, s, method, params); err == nil {
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

func (c *Client) callOne(ctx context.Context, s *server, method string, params any) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var res jsonrpc2.RawMessage
	err := s.call(cctx, method, params, &res)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return json.RawMessage(res), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return nil, fmt.Errorf("language server %s did not answer %s within %v (it may be loading the project or hung); the request was cancelled", s.name, method, c.opts.Timeout)
	case errors.As(err, &rpcErr):
		return nil, &lspfeatures.RequestError{Method: method, Code: int64(rpcErr.Code), Message: rpcErr.Message}
	}
	return nil, err
}

// Close shuts every started server down (shutdown, exit, then a kill
// for one that does not go).
func (c *Client) Close(ctx context.Context) {
	if c == nil {
		return
	}
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
	if s == nil {
		return
	}
	s.changed(ctx, path, content, deleted)
}
