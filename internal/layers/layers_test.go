// Package layers holds the repository-wide checks that keep the
// package layout the architecture: which package may import which,
// that every package but the binary is internal, and that nothing works
// at import time. It has no code of its own, only tests.
package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const mod = "github.com/catbuddy/cb-ls"

// TestLayers keeps the architecture honest mechanically: guard,
// filestate and shell import nothing of ours, config and the sandbox
// only guard (so the tools and everything above may read settings), the
// other subsystems beneath the tools (search, safefile, snapshot) reach
// nothing above them, diff reaches nothing of ours, tools never reaches lsp/agent/mcp/cmd (nor lspfeatures and lspclient,
// the LSP side of its language tools, which reach no front end), agent, mcp and
// session never reach lsp or cmd, and mcp not agent either; app, the run
// assembly, is beneath every front end and above everything else; a
// run's change set (changeset) lies above the tools and beneath app.
func TestLayers(t *testing.T) {
	forbidden := map[string][]string{
		"guard":     {"filestate", "snapshot", "tools", "agent", "lsp", "mcp", "cmd"},
		"filestate": {"guard", "snapshot", "tools", "agent", "lsp", "mcp", "cmd"},
		"tools":     {"agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "app", "changeset"},
		// The safe file layer imports nothing of ours; search only guard
		// (for admitted paths and the state directory's name) and it.
		"userstate": {"guard", "filestate", "config", "search", "safefile", "sandbox", "shell", "snapshot", "tools", "agent", "lsp", "mcp", "cmd", "session", "app", "changeset", "diff", "acp", "headless", "testenv"},
		"safefile":  {"guard", "filestate", "config", "search", "snapshot", "tools", "agent", "lsp", "mcp", "cmd", "session", "app"},
		"search":    {"filestate", "config", "snapshot", "tools", "agent", "lsp", "mcp", "cmd", "session", "app"},
		// The workspace before and after a command: the tools' exec
		// reports and undoes from it; it knows nothing of running one.
		"snapshot": {"config", "sandbox", "tools", "agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "session", "app"},
		"agent":    {"lsp", "cmd", "app", "session", "complete"},
		// Completions know models (through agent's providers) and
		// settings; the LSP server reads the buffers and calls them.
		"complete": {"lsp", "lspfeatures", "lspclient", "cmd", "app", "session", "mcp", "acp", "headless", "changeset"},
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
		"config": {"filestate", "snapshot", "tools", "sandbox", "search", "agent", "lsp", "mcp", "cmd", "session", "app"},
		// The sandbox confines and shell runs a line; tools decides what.
		"sandbox": {"filestate", "config", "shell", "snapshot", "tools", "search", "safefile", "agent", "lsp", "mcp", "cmd", "session", "app"},
		// Paths to file URIs and back: a leaf every LSP and ACP side shares.
		"fileuri": {"guard", "filestate", "config", "snapshot", "tools", "search", "safefile", "sandbox", "shell", "agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "session", "app", "acp"},
		// The diff, hunk and merge code is a leaf: the tools' edit results,
		// a run's pending changes and undo all use the same.
		"diff": {"guard", "filestate", "config", "snapshot", "tools", "search", "safefile", "sandbox", "shell", "agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "session", "app", "acp", "headless"},
		// The LSP server is a front end: no other front end is beneath it
		// (TestFrontEnds).
		"lsp": {"acp", "headless", "cmd"},
		// A run's pending change set: above the tools (it is a Workspace
		// and a Layer for them) and beside app, beneath every front end;
		// it knows nothing of the agent, the model or a protocol.
		"changeset": {"agent", "lsp", "lspfeatures", "lspclient", "mcp", "cmd", "session", "app", "acp", "headless"},
		"shell":     {"guard", "filestate", "config", "sandbox", "snapshot", "tools", "search", "safefile", "agent", "lsp", "mcp", "cmd", "session", "app"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+"/internal/"+pkg+"/...").CombinedOutput()
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

// TestFrontEnds keeps the ACP agent and cb-ls run front ends like the
// LSP server: each may use the run assembly and everything below it but
// no other front end, and nothing but cmd/cb-ls imports them.
func TestFrontEnds(t *testing.T) {
	ends := []string{"acp", "headless", "lsp"}
	for _, end := range ends {
		out, err := exec.Command("go", "list", "-deps", mod+"/internal/"+end+"/...").CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", end, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, other := range ends {
				p := mod + "/internal/" + other
				if other != end && (dep == p || strings.HasPrefix(dep, p+"/")) || strings.HasPrefix(dep, mod+"/cmd/") {
					t.Errorf("%s must not import %s", end, dep)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, mod+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, end := range []string{"acp", "headless"} {
			p := mod + "/internal/" + end
			if f[0] == p || strings.HasPrefix(f[0], p+"/") {
				continue
			}
			for _, imp := range f[1:] {
				if imp == p || strings.HasPrefix(imp, p+"/") {
					t.Errorf("%s imports %s: only cmd/cb-ls may", f[0], imp)
				}
			}
		}
	}
}

// TestEverythingInternal: cb-ls is a program, so every package but the
// binary's is internal, and no package of the product does work at
// import time (an init function): the sandbox's helper, for one, starts
// from an explicit sandbox.Main in main and TestMain.
func TestEverythingInternal(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", mod+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	initFunc := regexp.MustCompile(`(?m)^func init\(\)`)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		importPath, dir, _ := strings.Cut(line, " ")
		if importPath != mod+"/cmd/cb-ls" && !strings.HasPrefix(importPath, mod+"/internal/") {
			t.Errorf("package %s is outside internal/: only cmd/cb-ls may be", importPath)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if initFunc.Match(src) {
				t.Errorf("%s has an init function: start the work explicitly", f)
			}
		}
	}
}

// TestConfinementInSandbox: Landlock, seccomp and namespaces are the
// sandbox's business alone; any other package that reached for them
// would be a second, unreviewed sandbox.
func TestConfinementInSandbox(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", mod+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	confining := regexp.MustCompile(`unix\.(Landlock|SECCOMP|PR_SET_SECCOMP|PR_SET_NO_NEW_PRIVS|CLONE_NEW|Unshare|Mount\b|PivotRoot)|syscall\.(CLONE_NEW|Unshare)|Cloneflags|Unshareflags`)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		importPath, dir, _ := strings.Cut(line, " ")
		if importPath == mod+"/internal/sandbox" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if m := confining.Find(src); m != nil {
				t.Errorf("%s uses %s: confinement belongs in internal/sandbox", f, m)
			}
		}
	}
}
