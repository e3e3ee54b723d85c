package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// An editor without the catbuddy/languageFeature bridge (eglot, Helix,
// a plain LSP client) that names gopls in languageServers gets the
// language tools, answered by a gopls that cb-ls starts itself.
func TestLanguageServersSettingWithoutTheBridge(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "the language tools without the bridge", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := writeTree(t, `
-- go.mod --
module example.com/sum

go 1.21
-- calc.go --
package main

// Add returns a + b.
func Add(a, b int) int { return a + b }
-- main.go --
package main

import "fmt"

func main() {
	fmt.Println(Add(1, 2))
}
`)
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
		InitializationOptions: map[string]any{"languageServers": map[string]any{
			"gopls": map[string]any{"command": []string{"gopls"}, "extensions": []string{".go"}},
		}}})
	if names := listTools(t, e); !slices.Contains(names, "rename_symbol") {
		t.Fatalf("the language tools are not offered: %v", names)
	}
	out, isErr := e.RunTool("lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 6, "symbol": "Add"})
	if isErr || !strings.Contains(out, "calc.go:4: func Add(a, b int) int { return a + b }") {
		t.Fatalf("definition (error %v): %s", isErr, out)
	}
	out, isErr = e.RunTool("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})
	if isErr || !strings.Contains(out, "main.go:6: fmt.Println(Add(1, 2))") {
		t.Fatalf("references (error %v): %s", isErr, out)
	}
}
