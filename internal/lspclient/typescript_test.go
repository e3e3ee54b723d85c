package lspclient_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

const nodeServersInstall = "PATH=\"$(bash scripts/get-node-language-servers.sh):$PATH\""

// needNodeServer returns the command of a Node language server, skipping
// (or, in CI, failing) where it is not installed.
func needNodeServer(t *testing.T, program string) string {
	return testenv.NeedsTool(t, program, "the headless language tools tests", nodeServersInstall)
}

// tsProject is a library whose tsconfig includes only src/: the tests
// that call filterQuery are outside the project tsserver loads.
var tsProject = map[string]string{
	"package.json":  `{"name":"ufo-like","version":"1.0.0","type":"module"}`,
	"tsconfig.json": `{"compilerOptions":{"target":"ES2022","module":"ES2022","moduleResolution":"bundler","strict":true},"include":["src"]}`,
	"src/query.ts": `export function filterQuery(input: string, keep: (key: string) => boolean): string {
  return input
    .split("&")
    .filter((pair) => keep(pair.split("=")[0]))
    .join("&");
}
`,
	"src/index.ts": `export { filterQuery } from "./query";
`,
	"test/query.test.ts": `import { filterQuery } from "../src/query";

export function testFilterQuery(): boolean {
  return filterQuery("a=1&b=2", (k) => k === "a") === "a=1";
}

export function testFilterQueryEmpty(): boolean {
  return filterQuery("", () => true) === "";
}
`,
}

// headlessServers builds the tools of a headless session over servers.
func headlessServers(t *testing.T, dir string, servers map[string]lspclient.ServerConfig) (*tools.Registry, *lspclient.Client) {
	return headlessServersWith(t, dir, servers, nil)
}

// headlessServersWith is headlessServers with onStatus told of every
// status besides the test's log.
func headlessServersWith(t *testing.T, dir string, servers map[string]lspclient.ServerConfig, onStatus func(lspclient.Status)) (*tools.Registry, *lspclient.Client) {
	t.Helper()
	opts := lspclient.Options{Roots: []string{dir}, Servers: servers}
	opts.OnStatus = func(s lspclient.Status) {
		t.Logf("status: %s", s.Text)
		if onStatus != nil {
			onStatus(s)
		}
	}
	opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := lspclient.New(opts)
	t.Cleanup(func() { c.Close(context.Background()) })
	g, err := guard.New([]string{dir}, guard.ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: g, Workspace: c.Workspace(tools.DiskWorkspace{})}
	reg := tools.NewRegistry()
	if err := tools.RegisterBuiltins(reg, tc); err != nil {
		t.Fatal(err)
	}
	if err := tools.RegisterLanguageTools(reg, tc, c.Features()); err != nil {
		t.Fatal(err)
	}
	return reg, c
}

// TestTypeScriptTestsOutsideInclude: tsconfig.json includes only src/,
// and the tests that call filterQuery are outside it. references must
// find them (the files that name the symbol are opened for the server
// first), never answer "no references".
func TestTypeScriptTestsOutsideInclude(t *testing.T) {
	tsls := needNodeServer(t, "typescript-language-server")
	dir := writeProject(t, tsProject)
	reg, _ := headlessServers(t, dir, map[string]lspclient.ServerConfig{
		"typescript-language-server": {Command: []string{tsls, "--stdio"}, Extensions: []string{".ts", ".tsx", ".js"}},
	})
	res := run(t, reg, "lsp", map[string]any{"operation": "references", "path": "src/query.ts", "line": 1, "symbol": "filterQuery"})
	if res.IsError || strings.Contains(res.Output, "No reference") {
		t.Fatalf("references:\n%s", res.Output)
	}
	for _, want := range []string{"test/query.test.ts:4:", "test/query.test.ts:8:", "src/index.ts:1:"} {
		if !strings.Contains(res.Output, want) && !strings.Contains(res.Output, "still indexing") {
			t.Errorf("references lack %s and are not marked incomplete:\n%s", want, res.Output)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestTypeScriptBrokenInstallation: typescript-language-server beside
// TypeScript 7, which ships no tsserver.js. The server is named once
// with its error, its tools are withdrawn for its files, and later
// questions are refused at once with a short line.
func TestTypeScriptBrokenInstallation(t *testing.T) {
	tsls := needNodeServer(t, "typescript-language-server-ts7")
	dir := writeProject(t, tsProject)
	var mu sync.Mutex
	var unavailable []string
	reg, c := headlessServersWith(t, dir, map[string]lspclient.ServerConfig{
		"typescript-language-server": {Command: []string{tsls, "--stdio"}, Extensions: []string{".ts"}},
	}, func(s lspclient.Status) {
		if s.State == lspclient.StateUnavailable {
			mu.Lock()
			unavailable = append(unavailable, s.Text)
			mu.Unlock()
		}
	})
	res := run(t, reg, "lsp", map[string]any{"operation": "definition", "path": "test/query.test.ts", "line": 4, "symbol": "filterQuery"})
	if !res.IsError || !strings.Contains(res.Output, "the language tools are withdrawn for .ts files") {
		t.Fatalf("first question to a broken server:\n%s", res.Output)
	}
	res = run(t, reg, "lsp", map[string]any{"operation": "references", "path": "src/query.ts", "line": 1, "symbol": "filterQuery"})
	if !res.IsError || !strings.Contains(res.Output, "was withdrawn earlier") {
		t.Fatalf("second question:\n%s", res.Output)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unavailable) != 1 || !c.Withdrawn() {
		t.Fatalf("the user was told %d times (want once): %q; all withdrawn: %v", len(unavailable), unavailable, c.Withdrawn())
	}
}
