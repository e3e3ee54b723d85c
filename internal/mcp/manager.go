package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// Options tune the Manager; zero values mean the defaults in brackets.
type Options struct {
	// Version is reported to servers as the client version.
	Version string
	// UserConfig is the user's mcp.json [UserConfigPath()]; "-" reads none.
	UserConfig string
	// CallTimeout bounds a tool call when the server's entry sets no
	// timeout [60 s].
	CallTimeout time.Duration
	// ConnectTimeout bounds the handshake and each tools/list [30 s].
	ConnectTimeout time.Duration
	// BackoffMin and BackoffMax bound the delay between restarts [1 s, 30 s].
	BackoffMin, BackoffMax time.Duration
	// MaxFailures is how many starts in a row may fail before giving up
	// until the next reload [6].
	MaxFailures int
	// StableAfter is how long a session must last to reset the failure
	// count [60 s].
	StableAfter time.Duration
	// TerminateAfter is how long a stdio server has to exit after its
	// stdin closes before it is signalled [2 s].
	TerminateAfter time.Duration
	// KeepAlive pings servers at this interval to notice dead HTTP
	// servers [30 s]; negative disables.
	KeepAlive time.Duration
	// Logger receives lifecycle events and servers' stderr [slog.Default()].
	Logger *slog.Logger
	// ProjectTrusted reports whether the project at root may start the
	// servers of its .catbuddy/mcp.json. Nil trusts no project: a cloned
	// repository runs nothing just by being opened.
	ProjectTrusted func(root string) bool
	// Extra are servers the front end's client names itself (an ACP
	// client's mcpServers for a session). They are the user's own, like
	// the user's mcp.json, and replace a file's entry of the same name.
	Extra map[string]ServerConfig
	// URLAllow opens hosts (as web_fetch's allow-list) that a project's
	// HTTP server may reach despite the URL guard. Only the user's own
	// settings may fill it. The user's own mcp.json is not guarded.
	URLAllow []string
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.CallTimeout, 60*time.Second)
	def(&o.ConnectTimeout, 30*time.Second)
	def(&o.BackoffMin, time.Second)
	def(&o.BackoffMax, 30*time.Second)
	def(&o.StableAfter, 60*time.Second)
	def(&o.TerminateAfter, 2*time.Second)
	def(&o.KeepAlive, 30*time.Second)
	if o.KeepAlive < 0 {
		o.KeepAlive = 0
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 6
	}
	if o.UserConfig == "" {
		o.UserConfig = UserConfigPath()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Manager runs the configured MCP servers and keeps their tools in the
// registry as mcp_<server>_<tool>. It is safe for concurrent use.
type Manager struct {
	reg  *tools.Registry
	opts Options
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	rootDirs   []string
	servers    map[string]*server
	cfgErrs    []error
	registered map[string]registration
	waiters    chan struct{} // closed and replaced on every change

	// Test hooks, nil in the product. sessionEnded runs in a server's
	// loop after its session ended, before anything else happens;
	// callWaits runs when a tool call starts waiting for its server.
	sessionEnded func(server string)
	callWaits    func(server string)

	// OnChange, if set before Start, is called (without locks held)
	// after any server's state or tools change.
	OnChange func()
}

type registration struct {
	ref    toolRef
	schema string
}

// NewManager returns a Manager that registers tools in reg.
func NewManager(reg *tools.Registry, opts Options) *Manager {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{
		reg: reg, opts: opts, log: opts.Logger,
		ctx: ctx, cancel: cancel,
		servers:    map[string]*server{},
		registered: map[string]registration{},
		waiters:    make(chan struct{}),
	}
}

// Start reads the configuration for the workspace roots and starts every
// enabled server in the background; it never waits for a server.
// Configuration problems are logged and kept for Status.
func (m *Manager) Start(roots []string) { m.apply(roots) }

// Reload re-reads the configuration: servers that were removed are
// stopped and their tools unregistered, changed ones restarted, new
// ones started, and servers that gave up are tried again.
func (m *Manager) Reload() {
	m.mu.Lock()
	roots := m.rootDirs
	m.mu.Unlock()
	m.apply(roots)
}

// SetRoots applies new workspace folders (a different project config).
func (m *Manager) SetRoots(roots []string) { m.apply(roots) }

func (m *Manager) apply(roots []string) {
	if m.ctx.Err() != nil {
		return
	}
	var trusted []string
	for _, r := range roots {
		if m.opts.ProjectTrusted != nil && m.opts.ProjectTrusted(r) {
			trusted = append(trusted, r)
		} else if _, err := os.Stat(ProjectConfigPath(r)); err == nil {
			m.log.Info("not starting the project's MCP servers until the project is trusted", "file", ProjectConfigPath(r))
		}
	}
	cfg := LoadConfig(ConfigPaths(m.userConfig(), trusted))
	if len(m.opts.Extra) > 0 && cfg.Servers == nil {
		cfg.Servers = map[string]ServerConfig{}
	}
	for name, sc := range m.opts.Extra {
		cfg.Servers[name] = sc
	}
	for _, err := range cfg.Errors {
		m.log.Warn("MCP configuration", "err", err)
	}
	m.mu.Lock()
	m.rootDirs = append([]string(nil), roots...)
	m.cfgErrs = cfg.Errors
	var stop, start []*server
	for name, s := range m.servers {
		nc, ok := cfg.Servers[name]
		if !ok || !sameConfig(s.cfg, nc) || s.currentState() == StateFailed {
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	for _, name := range cfg.Names() {
		if _, running := m.servers[name]; running {
			continue
		}
		s := &server{name: name, cfg: cfg.Servers[name], m: m, state: StateStarting}
		if s.cfg.Disabled {
			s.state = StateDisabled
		} else {
			start = append(start, s)
		}
		m.servers[name] = s
	}
	m.mu.Unlock()
	for _, s := range stop {
		s.stop()
	}
	for _, s := range start {
		s.start(m.ctx)
	}
	m.changed()
}

func (m *Manager) userConfig() string {
	if m.opts.UserConfig == "-" {
		return ""
	}
	return m.opts.UserConfig
}

// sameConfig compares entries ignoring where they were read from.
func sameConfig(a, b ServerConfig) bool {
	a.Source, b.Source = "", ""
	return reflect.DeepEqual(a, b)
}

// Shutdown stops every server and unregisters their tools. The Manager
// cannot be started again.
func (m *Manager) Shutdown() {
	m.cancel()
	m.mu.Lock()
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.stop)
	}
	wg.Wait()
	m.mu.Lock()
	for name := range m.registered {
		m.reg.Unregister(name)
	}
	m.registered = map[string]registration{}
	m.mu.Unlock()
}

func (m *Manager) roots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.rootDirs...)
}

// changed brings the registry in line with the servers' tools and wakes
// whoever waits for a change.
func (m *Manager) changed() {
	m.sync()
	m.mu.Lock()
	close(m.waiters)
	m.waiters = make(chan struct{})
	m.mu.Unlock()
	if m.OnChange != nil {
		m.OnChange()
	}
}

// sync registers the tools of live servers and unregisters the rest.
// Tools of a server that is restarting stay registered, so a call in
// the meantime waits for the restart rather than finding "unknown".
func (m *Manager) sync() {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var refs []toolRef
	defs := map[toolRef]*sdk.Tool{}
	for _, n := range names {
		s := m.servers[n]
		s.mu.Lock()
		if s.state == StateReady || s.state == StateRetrying || s.state == StateStarting {
			for _, t := range s.tools {
				r := toolRef{n, t.Name}
				refs = append(refs, r)
				defs[r] = t
			}
		}
		s.mu.Unlock()
	}
	assigned := assignNames(refs)
	want := map[string]registration{}
	for r, name := range assigned {
		want[name] = registration{ref: r, schema: schemaString(defs[r])}
	}
	for name, reg := range m.registered {
		if w, ok := want[name]; !ok || w != reg {
			m.reg.Unregister(name)
			delete(m.registered, name)
		}
	}
	for name, reg := range want {
		if _, ok := m.registered[name]; ok {
			continue
		}
		if err := m.reg.Register(m.newTool(name, reg.ref, defs[reg.ref])); err != nil {
			m.log.Error("register MCP tool", "tool", name, "err", err)
			continue
		}
		m.registered[name] = reg
	}
}

// schemaString is the tool's definition as compared between listings.
func schemaString(t *sdk.Tool) string {
	b, _ := json.Marshal(struct {
		D string
		S any
		R bool
	}{t.Description, t.InputSchema, t.Annotations != nil && t.Annotations.ReadOnlyHint})
	return string(b)
}

// Wait blocks until cond holds for the current status or ctx ends.
func (m *Manager) Wait(ctx context.Context, cond func(Status) bool) error {
	for {
		m.mu.Lock()
		ch := m.waiters
		m.mu.Unlock()
		if cond(m.Status()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// Status describes every configured server.
type Status struct {
	Servers     []ServerStatus `json:"servers"`
	ConfigFiles []string       `json:"configFiles"`
	Errors      []string       `json:"errors,omitempty"`
}

// ServerStatus is one server's state and tools.
type ServerStatus struct {
	Name      string       `json:"name"`
	State     State        `json:"state"`
	Transport string       `json:"transport"`
	Target    string       `json:"target"` // command or URL, without env, headers or query
	Source    string       `json:"source"`
	Tools     []ToolStatus `json:"tools"`
	Error     string       `json:"error,omitempty"`
	Restarts  int          `json:"restarts"`
}

// ToolStatus pairs a registry name with the server's own tool name.
type ToolStatus struct {
	Name   string `json:"name"`
	Remote string `json:"remote"`
}

// Status returns a snapshot.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := Status{ConfigFiles: ConfigPaths(m.userConfig(), m.rootDirs), Servers: []ServerStatus{}}
	for _, err := range m.cfgErrs {
		st.Errors = append(st.Errors, err.Error())
	}
	byServer := map[string][]ToolStatus{}
	for name, reg := range m.registered {
		byServer[reg.ref.server] = append(byServer[reg.ref.server], ToolStatus{Name: name, Remote: reg.ref.tool})
	}
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := m.servers[n]
		kind, _ := s.cfg.Transport()
		s.mu.Lock()
		ss := ServerStatus{Name: n, State: s.state, Transport: kind, Target: target(s.cfg, kind),
			Source: s.cfg.Source, Error: s.lastErr, Restarts: s.restarts, Tools: byServer[n]}
		s.mu.Unlock()
		sort.Slice(ss.Tools, func(i, j int) bool { return ss.Tools[i].Name < ss.Tools[j].Name })
		if ss.Tools == nil {
			ss.Tools = []ToolStatus{}
		}
		st.Servers = append(st.Servers, ss)
	}
	return st
}

// target shows what a server runs without its secrets.
func target(c ServerConfig, kind string) string {
	if kind == "http" {
		u, err := url.Parse(c.URL)
		if err != nil {
			return "(unparsable URL)"
		}
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return u.String()
	}
	return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
}

func (s *server) currentState() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}
