package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// State is where a server is in its lifecycle.
type State string

const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateRetrying State = "retrying" // crashed or failed to start; will retry
	StateFailed   State = "failed"   // gave up after repeated failures
	StateStopped  State = "stopped"
	StateDisabled State = "disabled"
)

// server keeps one configured MCP server connected: it starts it,
// lists its tools, restarts it with backoff when it dies, and re-lists
// on tools/list_changed.
type server struct {
	name string
	cfg  ServerConfig
	m    *Manager

	mu       sync.Mutex
	state    State
	lastErr  string
	tools    []*sdk.Tool
	session  *sdk.ClientSession
	cmd      *exec.Cmd
	restarts int

	cancel context.CancelFunc
	done   chan struct{}
}

func (s *server) setState(st State, err error) {
	s.mu.Lock()
	s.state = st
	if err != nil {
		s.lastErr = err.Error()
	} else if st == StateReady {
		s.lastErr = ""
	}
	s.mu.Unlock()
	s.m.changed()
}

// start runs the connection loop in the background.
func (s *server) start(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	s.cancel = cancel
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.loop(ctx)
	}()
}

// stop ends the loop and the connection, and waits for both.
func (s *server) stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
}

func (s *server) loop(ctx context.Context) {
	opts := s.m.opts
	failures := 0
	backoff := opts.BackoffMin
	for {
		s.setState(StateStarting, nil)
		started := time.Now()
		err := s.session1(ctx)
		if hook := s.m.sessionEnded; hook != nil {
			hook(s.name)
		}
		if ctx.Err() != nil {
			s.mu.Lock()
			s.state, s.tools = StateStopped, nil
			s.mu.Unlock()
			s.m.changed()
			return
		}
		if time.Since(started) > opts.StableAfter {
			failures, backoff = 0, opts.BackoffMin // it ran fine for a while
		}
		failures++
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
		if failures >= opts.MaxFailures {
			s.mu.Lock()
			s.tools = nil
			s.mu.Unlock()
			s.m.log.Error("MCP server failed; giving up until reload", "server", s.name, "failures", failures, "err", err)
			s.setState(StateFailed, err)
			return
		}
		s.m.log.Warn("MCP server stopped; restarting", "server", s.name, "in", backoff, "err", err)
		s.setState(StateRetrying, err)
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.tools = nil
			s.mu.Unlock()
			s.setState(StateStopped, nil)
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, opts.BackoffMax)
	}
}

// session1 connects once, serves until the connection ends, and returns
// why it ended.
func (s *server) session1(ctx context.Context) error {
	transport, err := s.transport()
	if err != nil {
		return err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "cb-ls", Version: s.m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Re-list outside the notification handler: a request from
			// inside it could wait on the connection it runs on.
			go s.relist(ctx)
		},
		KeepAlive: s.m.opts.KeepAlive,
		// No roots: MCP deprecated them (protocol 2026-07-28, SEP-2577)
		// in favour of configuration. A stdio server starts in the work
		// root unless its cwd says otherwise, and a server that wants
		// paths gets them in its args. The SDK's default would advertise
		// an empty roots list, which tells a server there is no
		// workspace at all.
		Capabilities: &sdk.ClientCapabilities{},
	})
	cctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
	session, err := client.Connect(cctx, transport, nil)
	cancel()
	if err != nil {
		s.killProcess()
		return fmt.Errorf("connect: %w", err)
	}
	s.mu.Lock()
	s.session = session
	s.mu.Unlock()
	defer func() {
		// The server stops being ready the moment its session is gone,
		// in the same step: a call must never find it "ready" without a
		// session, nor a status reader a restart that has not happened.
		s.mu.Lock()
		s.session = nil
		wasReady := s.state == StateReady
		if wasReady {
			s.state = StateRetrying
		}
		s.mu.Unlock()
		if wasReady {
			s.m.changed()
		}
	}()
	if err := s.relist(ctx); err != nil {
		s.closeSession(session)
		return err
	}
	s.setState(StateReady, nil)
	s.m.log.Info("MCP server ready", "server", s.name, "tools", len(s.toolNames()))

	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
	select {
	case <-ctx.Done():
		s.closeSession(session)
		return ctx.Err()
	case err := <-ended:
		s.killProcess()
		if err == nil {
			err = errors.New("the server closed the connection")
		}
		return err
	}
}

// relist fetches the tool list and updates the registry.
func (s *server) relist(ctx context.Context) error {
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session == nil {
		return errors.New("not connected")
	}
	lctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	var list []*sdk.Tool
	for t, err := range session.Tools(lctx, nil) {
		if err != nil {
			return fmt.Errorf("list tools: %w", err)
		}
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	s.mu.Lock()
	s.tools = list
	s.mu.Unlock()
	s.m.changed()
	return nil
}

// transport builds the SDK transport for the configuration.
func (s *server) transport() (sdk.Transport, error) {
	kind, err := s.cfg.Transport()
	if err != nil {
		return nil, err
	}
	if kind == "http" {
		headers := map[string]string{}
		for k, v := range s.cfg.Headers {
			headers[k] = s.cfg.expand(v)
		}
		endpoint := s.cfg.expand(s.cfg.URL)
		base, err := s.m.httpBase(s.cfg, endpoint)
		if err != nil {
			return nil, err
		}
		return &sdk.StreamableClientTransport{
			Endpoint:   endpoint,
			HTTPClient: &http.Client{Transport: headerTransport{headers: headers, base: base}},
			MaxRetries: 1,
		}, nil
	}
	cmd := exec.Command(s.cfg.expand(s.cfg.Command), s.expandAll(s.cfg.Args)...)
	cmd.Dir = s.cfg.Cwd
	if cmd.Dir == "" {
		if roots := s.m.roots(); len(roots) > 0 {
			cmd.Dir = roots[0]
		}
	}
	env := scrubbedEnviron()
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+s.cfg.expand(v))
	}
	cmd.Env = env
	// The server's stderr is its log: ours, never the editor's stdio.
	cmd.Stderr = &logWriter{log: s.m.log, server: s.name}
	setProcessGroup(cmd)
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: s.m.opts.TerminateAfter}, nil
}

// closeSession closes gracefully, bounded in time, then makes sure the
// subprocess and its children are gone.
func (s *server) closeSession(session *sdk.ClientSession) {
	done := make(chan struct{})
	go func() {
		session.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.m.opts.TerminateAfter + time.Second):
		s.m.log.Warn("MCP server did not close in time; killing it", "server", s.name)
	}
	s.killProcess()
}

// killProcess kills what is left of the subprocess's process group
// (an npx launcher's node child, for one).
func (s *server) killProcess() {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		killProcessGroup(cmd.Process.Pid)
	}
}

func (s *server) toolNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Name
	}
	return out
}

func (s *server) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, v := range ss {
		out[i] = s.cfg.expand(v)
	}
	return out
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// logWriter turns a subprocess's stderr into log records, one per line.
type logWriter struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	buf    []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.log.Info("MCP server stderr", "server", w.server, "line", string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 { // a very long line without a newline
		w.log.Info("MCP server stderr", "server", w.server, "line", string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

// scrubbedEnviron is our environment minus secrets (the same rule as
// exec): a server gets a credential only when its entry names it.
func scrubbedEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !shell.IsSecretEnv(name) {
			out = append(out, kv)
		}
	}
	return out
}
