// Package cbls holds repository-wide checks; the product lives in the
// packages below it.
package cbls

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/catbuddy/cb-ls"

// TestLayers keeps the architecture honest mechanically: guard,
// filestate and shell import nothing of ours, config and the sandbox
// only guard (so the tools and everything above may read settings), the
// other subsystems beneath the tools (search, safefile) reach nothing
// above them, tools never reaches lsp/agent/mcp/cmd (nor lspfeatures and lspclient,
// the LSP side of its language tools, which reach no front end), agent, mcp and
// session never reach lsp or cmd, and mcp not agent either; app, the run
// assembly, is beneath every front end and above everything else.
func TestLayers(t *testing.T) {
	forbidden := map[string][]string{
		"guard":     {"filestate", "tools", "agent", "lsp", "mcp", "cmd"},
		"filestate": {"guard", "tools", "agent", "lsp", "mcp", "cmd"},
		"tools":     {"agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "app"},
		// The safe file layer imports nothing of ours; search only guard
		// (for admitted paths and the state directory's name) and it.
		"safefile": {"guard", "filestate", "config", "search", "tools", "agent", "lsp", "mcp", "cmd", "session", "app"},
		"search":   {"filestate", "config", "tools", "agent", "lsp", "mcp", "cmd", "session", "app"},
		"agent":    {"lsp", "cmd", "app", "session"},
		"mcp":      {"agent", "lsp", "cmd", "app"},
		"session":  {"lsp", "cmd", "app"},
		// The one run assembly: every front end builds on it, it on none.
		"app": {"lsp", "cmd"},
		// The language tools' LSP side: beneath the front ends, above the
		// tools; the editor bridge and the headless client share it.
		"lspfeatures": {"lsp", "lspclient", "agent", "mcp", "cmd", "session", "app"},
		"lspclient":   {"lsp", "agent", "mcp", "cmd", "session", "app"},
		// Settings are data: reading them must not pull in what they
		// configure.
		"config": {"filestate", "tools", "sandbox", "search", "agent", "lsp", "mcp", "cmd", "session", "app"},
		// The sandbox confines and shell runs a line; tools decides what.
		"sandbox": {"filestate", "config", "shell", "tools", "search", "safefile", "agent", "lsp", "mcp", "cmd", "session", "app"},
		"shell":   {"guard", "filestate", "config", "sandbox", "tools", "search", "safefile", "agent", "lsp", "mcp", "cmd", "session", "app"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "./internal/"+pkg+"/...").CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				path := mod + "/internal/" + b
				if b == "cmd" {
					path = mod + "/cmd"
				}
				if dep == path || strings.HasPrefix(dep, path+"/") {
					t.Errorf("%s must not import %s (found %s)", pkg, b, dep)
				}
			}
		}
	}
}

// TestACPIsAFrontEnd keeps the ACP agent a front end like the LSP
// server: it may use the run assembly and everything below it but not
// the LSP, and nothing but cmd/cb-ls imports it.
func TestACPIsAFrontEnd(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./internal/acp/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list acp: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == mod+"/internal/lsp" || strings.HasPrefix(dep, mod+"/internal/lsp/") || strings.HasPrefix(dep, mod+"/cmd/") {
			t.Errorf("acp must not import %s", dep)
		}
	}
	out, err = exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], mod+"/internal/acp") {
			continue
		}
		for _, imp := range f[1:] {
			if imp == mod+"/internal/acp" || strings.HasPrefix(imp, mod+"/internal/acp/") {
				t.Errorf("%s imports %s: only cmd/cb-ls may", f[0], imp)
			}
		}
	}
}
