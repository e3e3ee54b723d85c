package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// writeConfig writes root/.catbuddy/mcp.json.
func writeConfig(t *testing.T, root string, servers map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, ".catbuddy"), 0o755)
	if err := os.WriteFile(filepath.Join(root, ".catbuddy", "mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// stdioEntry runs this test binary as the MCP test server.
func stdioEntry(t *testing.T) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "env": map[string]string{serverEnv: "1"}}
}

// logBuffer collects log output (the servers' stderr among it).
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newTestManager(t *testing.T, reg *tools.Registry, logs io.Writer) *Manager {
	t.Helper()
	m := NewManager(reg, Options{
		UserConfig:     "-",
		ProjectTrusted: func(string) bool { return true },
		BackoffMin:     50 * time.Millisecond,
		BackoffMax:     200 * time.Millisecond,
		ConnectTimeout: 60 * time.Second, // the machine may be loaded
		CallTimeout:    30 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(logs, nil)),
	})
	t.Cleanup(m.Shutdown)
	return m
}

// waitFor awaits a status condition.
func waitFor(t *testing.T, m *Manager, what string, cond func(Status) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if err := m.Wait(ctx, cond); err != nil {
		b, _ := json.MarshalIndent(m.Status(), "", "  ")
		t.Fatalf("waiting for %s: %v\nstatus: %s", what, err, b)
	}
}

func serverIs(name string, st State, minRestarts int) func(Status) bool {
	return func(s Status) bool {
		for _, ss := range s.Servers {
			if ss.Name == name {
				return ss.State == st && ss.Restarts >= minRestarts && len(ss.Tools) > 0
			}
		}
		return false
	}
}

func call(t *testing.T, reg *tools.Registry, name string, args string) tools.Result {
	t.Helper()
	res, err := reg.Execute(t.Context(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute %s: %v", name, err)
	}
	return res
}

func TestStdioServerLifecycle(t *testing.T) {
	root := t.TempDir()
	writeConfig(t, root, map[string]any{"test": stdioEntry(t)})
	reg := tools.NewRegistry()
	logs := &logBuffer{}
	m := newTestManager(t, reg, logs)

	start := time.Now()
	m.Start([]string{root})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Start blocked for %s; servers must start in the background", d)
	}
	waitFor(t, m, "the stdio server", serverIs("test", StateReady, 0))

	for _, name := range []string{"mcp_test_echo", "mcp_test_pid", "mcp_test_image", "mcp_test_fail", "mcp_test_crash"} {
		if _, ok := reg.Get(name); !ok {
			t.Errorf("tool %s not registered", name)
		}
	}
	echo, _ := reg.Get("mcp_test_echo")
	if !strings.Contains(string(echo.InputSchema), `"text"`) || echo.Description != "Echo the text." {
		t.Errorf("echo schema/description not passed through: %s / %q", echo.InputSchema, echo.Description)
	}

	if res := call(t, reg, "mcp_test_echo", `{"text":"hi"}`); res.IsError || res.Output != "echo: hi" {
		t.Errorf("echo = %+v", res)
	}
	if res := call(t, reg, "mcp_test_echo", `{"text":5}`); !res.IsError {
		t.Errorf("echo with a bad argument = %+v, want an error result", res)
	}
	if res := call(t, reg, "mcp_test_image", `{}`); res.IsError || !strings.Contains(res.Output, "a caption") || !strings.Contains(res.Output, "[image content omitted: image/png") {
		t.Errorf("image = %+v", res)
	}
	if res := call(t, reg, "mcp_test_fail", `{}`); !res.IsError || !strings.Contains(res.Output, "the widget is broken") {
		t.Errorf("fail = %+v", res)
	}
	// The workspace reaches a server as its working directory, not as MCP
	// roots (deprecated by the protocol): none are advertised.
	wantCwd, _ := filepath.EvalSymlinks(root)
	if res := call(t, reg, "mcp_test_whereami", `{}`); res.IsError || res.Output != "cwd="+wantCwd+" roots=false" {
		t.Errorf("whereami = %+v, want cwd=%s roots=false", res, wantCwd)
	}
	if !strings.Contains(logs.String(), "test server starting") {
		t.Errorf("the server's stderr did not reach our log:\n%s", logs.String())
	}

	// tools/list_changed: a new tool appears without a reload.
	call(t, reg, "mcp_test_grow", `{}`)
	waitFor(t, m, "the added tool", func(s Status) bool {
		_, ok := reg.Get("mcp_test_added")
		return ok
	})
	if res := call(t, reg, "mcp_test_added", `{}`); res.Output != "new tool works" {
		t.Errorf("added = %+v", res)
	}

	// A crash is recovered by a restart.
	oldPid := call(t, reg, "mcp_test_pid", `{}`).Output
	if res := call(t, reg, "mcp_test_crash", `{}`); !res.IsError {
		t.Errorf("crash = %+v, want an error result", res)
	}
	waitFor(t, m, "the restart", serverIs("test", StateReady, 1))
	newPid := call(t, reg, "mcp_test_pid", `{}`).Output
	if newPid == oldPid || newPid == "" {
		t.Errorf("pid after restart = %q, before %q", newPid, oldPid)
	}
	if res := call(t, reg, "mcp_test_echo", `{"text":"again"}`); res.Output != "echo: again" {
		t.Errorf("echo after restart = %+v", res)
	}

	// Shutdown stops the process and unregisters the tools.
	pid, _ := strconv.Atoi(newPid)
	m.Shutdown()
	for _, tool := range reg.List() {
		if strings.HasPrefix(tool.Name, Prefix) {
			t.Errorf("tool %s still registered after shutdown", tool.Name)
		}
	}
	waitGone(t, pid)
}

func TestCallTimeout(t *testing.T) {
	root := t.TempDir()
	entry := stdioEntry(t)
	entry["timeout"] = 1
	writeConfig(t, root, map[string]any{"t": entry})
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, io.Discard)
	m.Start([]string{root})
	waitFor(t, m, "the server", serverIs("t", StateReady, 0))
	res := call(t, reg, "mcp_t_slow", `{}`)
	if !res.IsError || !strings.Contains(res.Output, "timed out after 1s") {
		t.Errorf("slow = %+v, want a timeout", res)
	}
}

func TestHTTPServerAndReload(t *testing.T) {
	var mu sync.Mutex
	var gotHeader string
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotHeader = r.Header.Get("Authorization")
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	// Registered before the manager's cleanup, so it runs after it: the
	// server's Close waits for the client's open event stream.
	t.Cleanup(srv.Close)
	t.Setenv("CB_LS_TEST_MCP_KEY", "k123")

	root := t.TempDir()
	writeConfig(t, root, map[string]any{
		"web":   map[string]any{"url": srv.URL, "headers": map[string]string{"Authorization": "Bearer ${CB_LS_TEST_MCP_KEY}"}},
		"local": stdioEntry(t),
	})
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, io.Discard)
	// A project's HTTP server on loopback, and its ${VAR}, need the
	// user's own permission: the allow-list and projectEnv.
	m.opts.URLAllow = []string{strings.TrimPrefix(srv.URL, "http://")}
	m.opts.UserConfig = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(m.opts.UserConfig, []byte(`{"projectEnv":["CB_LS_TEST_MCP_KEY"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Start([]string{root})
	waitFor(t, m, "the HTTP server", serverIs("web", StateReady, 0))
	if res := call(t, reg, "mcp_web_echo", `{"text":"over http"}`); res.Output != "echo: over http" {
		t.Errorf("http echo = %+v", res)
	}
	mu.Lock()
	if gotHeader != "Bearer k123" {
		t.Errorf("Authorization header = %q, want the expanded value", gotHeader)
	}
	mu.Unlock()
	waitFor(t, m, "the stdio server", serverIs("local", StateReady, 0))

	st := m.Status()
	if st.Servers[1].Name != "web" || st.Servers[1].Target != srv.URL || st.Servers[1].Transport != "http" {
		t.Errorf("status of web = %+v", st.Servers[1])
	}

	// Reload without "local": its tools go, web's stay.
	writeConfig(t, root, map[string]any{
		"web": map[string]any{"url": srv.URL, "headers": map[string]string{"Authorization": "Bearer ${CB_LS_TEST_MCP_KEY}"}},
	})
	m.Reload()
	for _, tool := range reg.List() {
		if strings.HasPrefix(tool.Name, "mcp_local_") {
			t.Errorf("tool %s of a removed server still registered", tool.Name)
		}
	}
	if _, ok := reg.Get("mcp_web_echo"); !ok {
		t.Errorf("reload dropped the unchanged server's tools")
	}
	if len(m.Status().Servers) != 1 {
		t.Errorf("status after reload = %+v", m.Status().Servers)
	}
}

func TestBrokenServerDoesNotBlockAndGivesUp(t *testing.T) {
	root := t.TempDir()
	writeConfig(t, root, map[string]any{
		"broken": map[string]any{"command": filepath.Join(root, "no-such-binary")},
		"off":    map[string]any{"command": "true", "disabled": true},
	})
	os.WriteFile(filepath.Join(root, ".catbuddy", "bad.json"), []byte("{"), 0o644)
	reg := tools.NewRegistry()
	m := NewManager(reg, Options{UserConfig: "-", ProjectTrusted: func(string) bool { return true }, BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond, MaxFailures: 3, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer m.Shutdown()
	m.Start([]string{root})
	waitFor(t, m, "giving up", func(s Status) bool {
		return len(s.Servers) == 2 && s.Servers[0].State == StateFailed
	})
	st := m.Status()
	if st.Servers[0].Restarts != 3 || !strings.Contains(st.Servers[0].Error, "no-such-binary") {
		t.Errorf("broken = %+v", st.Servers[0])
	}
	if st.Servers[1].State != StateDisabled {
		t.Errorf("off = %+v", st.Servers[1])
	}
}

func TestLoadConfigMergesAndReports(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	os.WriteFile(user, []byte(`{"mcpServers": {"a": {"command": "user-a"}, "b": {"url": "https://b.example/mcp"}}}`), 0o644)
	root := filepath.Join(dir, "proj")
	writeConfig(t, root, map[string]any{
		"a":    map[string]any{"command": "project-a", "args": []string{"-x"}},
		"bad":  map[string]any{"args": []string{"nothing to run"}},
		"both": map[string]any{"command": "x", "url": "http://y"},
		"sse":  map[string]any{"type": "sse", "url": "http://y"},
	})
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"mcpServers": [}`), 0o644)

	cfg := LoadConfig([]string{user, filepath.Join(root, ".catbuddy", "mcp.json"), broken, filepath.Join(dir, "missing.json")})
	if got := cfg.Servers["a"].Command; got != "project-a" {
		t.Errorf("a.command = %q, want the project's entry to win", got)
	}
	if got := cfg.Servers["b"].URL; got != "https://b.example/mcp" {
		t.Errorf("b.url = %q", got)
	}
	if len(cfg.Servers) != 2 {
		t.Errorf("servers = %v", cfg.Names())
	}
	errs := fmt.Sprint(cfg.Errors)
	for _, want := range []string{`"bad": needs a "command"`, `"both": give either`, `"sse": the legacy "sse" transport`, "broken.json"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors %s lack %q", errs, want)
		}
	}
}

// waitGone waits until pid has exited (or is a zombie).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("MCP server process %d still runs after shutdown", pid)
}

// A project's HTTP server at a loopback or private address is refused by
// the URL guard unless the user allowed the host; a project's ${VAR}
// expands only when the user listed the variable; nothing of an
// untrusted project starts.
func TestProjectServersAreGuarded(t *testing.T) {
	var mu sync.Mutex
	var hits int
	var gotHeader string
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		gotHeader = r.Header.Get("Authorization")
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("CB_LS_TEST_SECRET", "s3cret")
	root := t.TempDir()
	writeConfig(t, root, map[string]any{
		"web": map[string]any{"url": srv.URL, "headers": map[string]string{"Authorization": "Bearer ${CB_LS_TEST_SECRET}"}},
	})

	// Untrusted: not even listed.
	untrusted := NewManager(tools.NewRegistry(), Options{UserConfig: "-", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(untrusted.Shutdown)
	untrusted.Start([]string{root})
	if st := untrusted.Status(); len(st.Servers) != 0 {
		t.Errorf("an untrusted project's servers: %+v", st.Servers)
	}

	// Trusted, but loopback is not allowed by the user: refused before any request.
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, io.Discard)
	m.opts.MaxFailures = 1
	m.Start([]string{root})
	waitFor(t, m, "the refusal", func(s Status) bool { return len(s.Servers) == 1 && s.Servers[0].State == StateFailed })
	if st := m.Status(); !strings.Contains(st.Servers[0].Error, "URL refused") {
		t.Errorf("status = %+v, want the URL guard's refusal", st.Servers[0])
	}
	mu.Lock()
	if hits != 0 {
		t.Errorf("the private address was reached %d times", hits)
	}
	mu.Unlock()

	// Allowed by the user: it works, and the unlisted variable stays home.
	m2 := newTestManager(t, tools.NewRegistry(), io.Discard)
	m2.opts.URLAllow = []string{strings.TrimPrefix(srv.URL, "http://")}
	m2.Start([]string{root})
	waitFor(t, m2, "the allowed server", serverIs("web", StateReady, 0))
	mu.Lock()
	if gotHeader != "Bearer" && gotHeader != "Bearer " {
		t.Errorf("Authorization = %q: a project expanded a variable the user did not list", gotHeader)
	}
	mu.Unlock()
}
