package lspclient_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// goProject is a small module whose Add is defined in one file and
// called from another; the comment holds non-ASCII text before the call
// so that a wrong column conversion would land on the wrong identifier.
var goProject = map[string]string{
	"go.mod": "module example.com/calc\n\ngo 1.22\n",
	"calc/calc.go": `package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Calc sums.
type Calc struct{ total int }

// Sum adds n to the total.
func (c *Calc) Sum(n int) int {
	c.total = Add(c.total, n)
	return c.total
}
`,
	"main.go": `package main

import (
	"fmt"

	"example.com/calc/calc"
)

func main() {
	/* 🐱 ünïcode */ fmt.Println(calc.Add(1, 2))
}
`,
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// needGopls returns the gopls command, skipping (or, in CI, failing)
// where it is not installed.
func needGopls(t *testing.T) string {
	return testenv.NeedsTool(t, "gopls", "the headless language tools tests", "PATH=\"$(bash scripts/get-gopls.sh):$PATH\"")
}

// headless builds the tools of a headless session over real gopls.
func headless(t *testing.T, dir string) (*tools.Registry, *lspclient.Client) {
	t.Helper()
	return headlessServers(t, dir, map[string]lspclient.ServerConfig{
		"gopls": {Command: []string{needGopls(t)}, Extensions: []string{".go"}},
	})
}

func run(t *testing.T, reg *tools.Registry, name string, args map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := reg.Execute(ctx, name, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s %s →\n%s", name, raw, res.Output)
	return res
}

func TestGoplsDefinitionReferencesRename(t *testing.T) {
	dir := writeProject(t, goProject)
	reg, _ := headless(t, dir)

	res := run(t, reg, "lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 10, "symbol": "Add"})
	if res.IsError || !strings.Contains(res.Output, "calc/calc.go:4: func Add(a, b int) int { return a + b }") {
		t.Fatalf("definition:\n%s", res.Output)
	}
	res = run(t, reg, "lsp", map[string]any{"operation": "references", "path": "calc/calc.go", "line": 4, "symbol": "Add"})
	for _, want := range []string{"calc/calc.go:11: c.total = Add(c.total, n)", "main.go:10: /* 🐱 ünïcode */ fmt.Println(calc.Add(1, 2))"} {
		if res.IsError || !strings.Contains(res.Output, want) {
			t.Fatalf("references: want %q in\n%s", want, res.Output)
		}
	}
	res = run(t, reg, "lsp", map[string]any{"operation": "document_symbols", "path": "calc/calc.go"})
	if res.IsError || !strings.Contains(res.Output, "function Add") || !strings.Contains(res.Output, "(lines 10-13)") {
		t.Fatalf("document_symbols:\n%s", res.Output)
	}

	res = run(t, reg, "rename_symbol", map[string]any{"path": "main.go", "line": 10, "symbol": "Add", "new_name": "Plus"})
	if res.IsError {
		t.Fatalf("rename: %s", res.Output)
	}
	for name, want := range map[string]string{
		"main.go":      "/* 🐱 ünïcode */ fmt.Println(calc.Plus(1, 2))",
		"calc/calc.go": "c.total = Plus(c.total, n)",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), want) {
			t.Fatalf("after rename %s lacks %q:\n%s", name, want, b)
		}
	}
	// The servers saw the rename: a question after it finds the new name.
	res = run(t, reg, "lsp", map[string]any{"operation": "references", "path": "calc/calc.go", "line": 4, "symbol": "Plus"})
	if res.IsError || !strings.Contains(res.Output, "main.go:10:") {
		t.Fatalf("references after rename:\n%s", res.Output)
	}
}
