package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// langProject has non-ASCII text before the symbols, so a position
// counted in bytes or runes instead of UTF-16 units lands elsewhere.
const langProject = `
-- calc.go --
package calc

// Ünïcode 🐱 comment
func Add(a, b int) int { return a + b }
-- main.go --
package main

func main() { s := "🐱é🐱"; println(s, Add(1, 2), Add(3, 4)) }
`

// allFeatures is what a full bridge client lists.
var allFeatures = []string{
	"textDocument/definition", "textDocument/typeDefinition", "textDocument/implementation",
	"textDocument/references", "textDocument/hover", "textDocument/documentSymbol", "workspace/symbol",
	"textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls",
	"textDocument/prepareRename", "textDocument/rename", "textDocument/codeAction", "textDocument/formatting",
}

// langEditor starts a fake editor over dir whose client lists methods
// in experimental.catbuddy.languageFeatures and answers them with f.
func langEditor(t *testing.T, dir string, timeout time.Duration, f fake.LanguageFeatureFunc, methods ...string) *fake.Editor {
	t.Helper()
	e := fake.New(t, fake.Options{Folders: []string{dir}, Capabilities: fake.LanguageFeatures(methods...),
		Server: lsp.Options{RegisterTools: testTools, LanguageFeatureTimeout: timeout}})
	e.SetLanguageFeatures(f)
	return e
}

// textAt returns the UTF-16 position of the n-th (1-based) occurrence of
// sub in the file, computed by the fake's own mapper.
func textAt(t *testing.T, path, sub string, n int) protocol.Position {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text, off := string(b), -1
	for range n {
		k := strings.Index(text[off+1:], sub)
		if k < 0 {
			t.Fatalf("%q not in %s", sub, path)
		}
		off += k + 1
	}
	return fake.Position(text, off)
}

type posParams struct {
	TextDocument struct {
		URI uri.URI `json:"uri"`
	} `json:"textDocument"`
	Position protocol.Position `json:"position"`
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Errorf("params %s: %v", raw, err)
	}
	return v
}

func loc(path string, line, from, to uint32) map[string]any {
	return map[string]any{"uri": fileuri.FromPath(path), "range": protocol.Range{
		Start: protocol.Position{Line: line, Character: from}, End: protocol.Position{Line: line, Character: to}}}
}

func TestLanguageFeatureDefinitionInUTF16(t *testing.T) {
	dir := writeTree(t, langProject)
	main, calc := filepath.Join(dir, "main.go"), filepath.Join(dir, "calc.go")
	want := textAt(t, main, "Add", 2) // after 🐱é🐱 and the first Add
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		p := decode[posParams](t, raw)
		if p.TextDocument.URI != fileuri.FromPath(main) || p.Position != want {
			t.Errorf("%s at %s %+v, want %+v", method, p.TextDocument.URI, p.Position, want)
		}
		switch method {
		case "textDocument/definition":
			return []any{loc(calc, 3, 5, 8)}, nil
		case "textDocument/hover":
			return map[string]any{"contents": map[string]any{"kind": "markdown", "value": "```go\nfunc Add(a, b int) int\n```\nAdd returns a + b."}}, nil
		}
		return nil, nil
	}, allFeatures...)

	out, isErr := e.RunTool("lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 3, "symbol": "Add", "occurrence": 2})
	if isErr || !strings.Contains(out, "calc.go:4: func Add(a, b int) int { return a + b }") {
		t.Fatalf("definition:\n%s", out)
	}
	out, isErr = e.RunTool("lsp", map[string]any{"operation": "hover", "path": "main.go", "line": 3, "symbol": "Add", "occurrence": 2})
	if isErr || !strings.Contains(out, "func Add(a, b int) int") || !strings.Contains(out, "Add returns a + b.") {
		t.Fatalf("hover:\n%s", out)
	}
	reqs := e.LanguageFeatureRequests()
	if len(reqs) != 2 || reqs[0].Method != "textDocument/definition" || reqs[1].Method != "textDocument/hover" {
		t.Fatalf("requests: %+v", reqs)
	}
}

func TestLanguageFeatureMergedAndNullResults(t *testing.T) {
	dir := writeTree(t, langProject)
	main, calc := filepath.Join(dir, "main.go"), filepath.Join(dir, "calc.go")
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		switch method {
		case "textDocument/references":
			// Two servers answered: the same place twice, and a LocationLink.
			return []any{loc(main, 2, 33, 36), loc(calc, 3, 5, 8), loc(main, 2, 33, 36),
				map[string]any{"targetUri": fileuri.FromPath(main), "targetRange": protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 50}},
					"targetSelectionRange": protocol.Range{Start: protocol.Position{Line: 2, Character: 44}, End: protocol.Position{Line: 2, Character: 47}}}}, nil
		}
		return nil, nil // definition: no answer
	}, allFeatures...)

	out, isErr := e.RunTool("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})
	// The repeated place is listed once; the LocationLink is a second
	// place on main.go's line 3, counted and listed by its column.
	if isErr || !strings.HasPrefix(out, "3 references to Add (calc.go:4), the declaration included:\n") ||
		!strings.Contains(out, "\ncalc.go:4: func Add") || !strings.Contains(out, "\nmain.go:3: func main()") ||
		!strings.Contains(out, "[2 on this line, at columns 34, 45]") {
		t.Fatalf("references:\n%s", out)
	}
	out, isErr = e.RunTool("lsp", map[string]any{"operation": "definition", "path": "calc.go", "line": 4, "symbol": "Add"})
	if isErr || out != "The language server found no definition for Add (calc.go:4)." {
		t.Fatalf("null definition: %v %q", isErr, out)
	}
}

func TestLanguageFeatureErrorIsToolError(t *testing.T) {
	dir := writeTree(t, langProject)
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "no package metadata for file calc.go")
	}, allFeatures...)
	out, isErr := e.RunTool("lsp", map[string]any{"operation": "implementation", "path": "calc.go", "line": 4, "symbol": "Add"})
	if !isErr || !strings.Contains(out, "textDocument/implementation") || !strings.Contains(out, "no package metadata for file calc.go") {
		t.Fatalf("error: %v\n%s", isErr, out)
	}
}

// hang answers nothing until the request is cancelled.
func hang(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestLanguageFeatureCancelledWithTheTool(t *testing.T) {
	dir := writeTree(t, langProject)
	e := langEditor(t, dir, 0, hang, allFeatures...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.CallCtx(ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": "catbuddy.runTool",
			"arguments": []any{map[string]any{"name": "lsp", "arguments": map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"}}}}, nil)
	}()
	e.Await("the references request", func() bool { return len(e.LanguageFeatureRequests()) == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled runTool succeeded")
	}
	id := e.LanguageFeatureRequests()[0].ID
	e.Await("$/cancelRequest for the references request", func() bool { return slices.Contains(e.CancelledRequests(), id) })
}

func TestLanguageFeatureSlowClientTimesOut(t *testing.T) {
	dir := writeTree(t, langProject)
	e := langEditor(t, dir, 300*time.Millisecond, hang, allFeatures...)
	out, isErr := e.RunTool("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})
	if !isErr || !strings.Contains(out, "did not answer textDocument/references within 300ms") {
		t.Fatalf("timeout: %v\n%s", isErr, out)
	}
	id := e.LanguageFeatureRequests()[0].ID
	e.Await("$/cancelRequest after the timeout", func() bool { return slices.Contains(e.CancelledRequests(), id) })
}

// listTools returns the names of the tools the server offers.
func listTools(t *testing.T, e *fake.Editor) []string {
	t.Helper()
	var infos []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := e.ExecuteCommand(lsp.CmdListTools, nil, &infos); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
		if i.Name == "lsp" {
			names = append(names, "lsp schema "+string(i.InputSchema))
		}
	}
	return names
}

func TestLanguageToolsOfferedOnlyWithTheCapability(t *testing.T) {
	dir := writeTree(t, langProject)
	plain := newEditor(t, dir)
	for _, n := range listTools(t, plain) {
		if strings.HasPrefix(n, "lsp") || n == "rename_symbol" || n == "code_action" || n == "replace_symbol" {
			t.Errorf("a client without catbuddy.languageFeatures is offered %s", n)
		}
	}
	some := langEditor(t, dir, 0, hang, "textDocument/definition", "textDocument/references", "textDocument/unknownThing")
	names := listTools(t, some)
	var schema string
	for _, n := range names {
		if s, ok := strings.CutPrefix(n, "lsp schema "); ok {
			schema = s
		}
		if n == "rename_symbol" || n == "code_action" || n == "replace_symbol" {
			t.Errorf("a client answering definition and references only is offered %s", n)
		}
	}
	if !strings.Contains(schema, `"enum":["definition","references"]`) {
		t.Fatalf("lsp's operations should be exactly what the client answers: %s (tools %v)", schema, names)
	}
	out, isErr := some.RunTool("lsp", map[string]any{"operation": "hover", "path": "calc.go", "line": 4, "symbol": "Add"})
	if !isErr || !strings.Contains(out, `operation "hover" is not available; use one of definition, references`) {
		t.Fatalf("hover without the capability: %s", out)
	}
}

// TestLanguageFeatureUnlistedFilesNamed: the editor's server listed only
// the declaration (its project leaves main.go out); cb-ls cannot open
// files for the editor's servers, so the answer names the file that
// mentions the symbol and was not listed, instead of passing for "used
// nowhere else".
func TestLanguageFeatureUnlistedFilesNamed(t *testing.T) {
	dir := writeTree(t, langProject)
	calc := filepath.Join(dir, "calc.go")
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		return []any{loc(calc, 3, 5, 8)}, nil
	}, allFeatures...)
	out, isErr := e.RunTool("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})
	if isErr || !strings.Contains(out, "the language server did not list main.go, which also name Add") ||
		!strings.Contains(out, "1 reference to Add (calc.go:4)") {
		t.Fatalf("references:\n%s", out)
	}
}
