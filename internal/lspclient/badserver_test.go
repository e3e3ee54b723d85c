package lspclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// fakeServerEnv makes the test binary a misbehaving language server:
// it initializes, then answers textDocument/definition by hanging
// ("hang"), by crashing ("crash"), or by an error: with every request
// ("broken", as a server whose installation is missing a part), or only
// that one ("refuse", a question it cannot answer).
const fakeServerEnv = "CB_LS_TEST_LANGUAGE_SERVER"

func TestMain(m *testing.M) {
	sandbox.Main() // the servers the tests start run confined, through this binary
	if mode := os.Getenv(fakeServerEnv); mode == "writer" {
		serveWriter()
		return
	} else if mode != "" {
		serveFake(mode)
		return
	}
	os.Exit(m.Run())
}

type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

func serveFake(mode string) {
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(stdio{os.Stdin, os.Stdout}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"definitionProvider": true, "referencesProvider": true, "documentSymbolProvider": true}}, nil
		case "textDocument/documentSymbol":
			if mode == "broken" {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "Could not find a valid TypeScript installation")
			}
			return []any{}, nil
		case "textDocument/definition":
			if mode == "broken" || mode == "refuse" {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "Could not find a valid TypeScript installation")
			}
			if mode == "crash" {
				fmt.Fprintln(os.Stderr, "panic: the fake language server crashed")
				os.Exit(2)
			}
			jsonrpc2.Async(ctx)
			<-ctx.Done() // never answers; cancellation is not honoured either
			select {}
		case "shutdown":
			return nil, nil
		case "exit":
			os.Exit(0)
		}
		return nil, nil
	})
	<-conn.Done()
}

func badClient(t *testing.T, dir string, mode string, command []string) *tools.Registry {
	t.Helper()
	c := lspclient.New(lspclient.Options{Roots: []string{dir}, Timeout: 500 * time.Millisecond, StartTimeout: 2 * time.Second,
		IndexingWait: 100 * time.Millisecond, // the fake says nothing of its loading
		Servers:      map[string]lspclient.ServerConfig{"fakels": {Command: command, Extensions: []string{".go"}}}})
	t.Cleanup(func() { c.Close(context.Background()) })
	if mode != "" {
		t.Setenv(fakeServerEnv, mode)
	}
	g, err := guard.New([]string{dir}, guard.ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: g, Workspace: c.Workspace(tools.DiskWorkspace{}), Language: c.Features()}
	reg := tools.NewRegistry()
	if err := tools.RegisterBuiltins(reg, tc); err != nil {
		t.Fatal(err)
	}
	return reg
}

func definitionOf(t *testing.T, reg *tools.Registry) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"operation": "definition", "path": "main.go", "line": 10, "symbol": "Add"})
	res, err := reg.Execute(context.Background(), "lsp", raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLanguageServerHangsTimesOut(t *testing.T) {
	dir := writeProject(t, goProject)
	reg := badClient(t, dir, "hang", []string{os.Args[0]})
	start := time.Now()
	res := definitionOf(t, reg)
	if !res.IsError || !strings.Contains(res.Output, "language server fakels did not answer textDocument/definition within 500ms") {
		t.Fatalf("hang: %s", res.Output)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the hung server held the tool %v", d)
	}
}

// TestLanguageServerCrashIsNamed: a server that crashes is named with
// its last words, restarted once for the next question, and withdrawn
// when it crashes again; after that a question is refused at once.
func TestLanguageServerCrashIsNamed(t *testing.T) {
	dir := writeProject(t, goProject)
	reg := badClient(t, dir, "crash", []string{os.Args[0]})
	res := definitionOf(t, reg)
	if !res.IsError || !strings.Contains(res.Output, "language server fakels exited") || !strings.Contains(res.Output, "the fake language server crashed") ||
		!strings.Contains(res.Output, "it will be restarted for the next question") {
		t.Fatalf("crash: %s", res.Output)
	}
	res = definitionOf(t, reg)
	if !res.IsError || !strings.Contains(res.Output, "fakels cannot answer: it crashed again after a restart") ||
		!strings.Contains(res.Output, "the language tools are withdrawn for .go files in this session") {
		t.Fatalf("second crash: %s", res.Output)
	}
	if res := definitionOf(t, reg); !res.IsError || !strings.Contains(res.Output, "the language server fakels was withdrawn earlier") {
		t.Fatalf("after the withdrawal: %s", res.Output)
	}
}

func TestLanguageServerThatCannotStart(t *testing.T) {
	dir := writeProject(t, goProject)
	reg := badClient(t, dir, "", []string{"/nonexistent/gopls"})
	res := definitionOf(t, reg)
	if !res.IsError || !strings.Contains(res.Output, "start language server fakels (/nonexistent/gopls)") ||
		!strings.Contains(res.Output, "withdrawn for .go files") {
		t.Fatalf("no such program: %s", res.Output)
	}
	raw, _ := json.Marshal(map[string]any{"operation": "definition", "path": "go.mod", "line": 1, "symbol": "module"})
	if res, _ := reg.Execute(context.Background(), "lsp", raw); !res.IsError || !strings.Contains(res.Output, "no language server is configured for .mod files") {
		t.Fatalf("unconfigured extension: %s", res.Output)
	}
}

// TestLanguageServerBrokenIsWithdrawn: a server whose first question
// fails, and whose outline of the same file fails too, is broken, not
// asked a bad question: it is named once and withdrawn.
func TestLanguageServerBrokenIsWithdrawn(t *testing.T) {
	dir := writeProject(t, goProject)
	reg := badClient(t, dir, "broken", []string{os.Args[0]})
	res := definitionOf(t, reg)
	if !res.IsError || !strings.Contains(res.Output, "fakels cannot answer: it fails every request: Could not find a valid TypeScript installation") {
		t.Fatalf("broken: %s", res.Output)
	}
	if res := definitionOf(t, reg); !res.IsError || !strings.Contains(res.Output, "was withdrawn earlier") {
		t.Fatalf("after the withdrawal: %s", res.Output)
	}
}

// TestLanguageServerRefusalIsNotBreakage: a server that refuses its first
// question but outlines the file is healthy: its error reaches the model
// and it keeps being asked.
func TestLanguageServerRefusalIsNotBreakage(t *testing.T) {
	dir := writeProject(t, goProject)
	reg := badClient(t, dir, "refuse", []string{os.Args[0]})
	for range 2 {
		res := definitionOf(t, reg)
		if !res.IsError || !strings.Contains(res.Output, "answered textDocument/definition with an error: Could not find") || strings.Contains(res.Output, "withdrawn") {
			t.Fatalf("refusal: %s", res.Output)
		}
	}
}
