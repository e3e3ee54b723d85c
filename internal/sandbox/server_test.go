//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// TestSandboxServer: a server (Request.Server) whose program lies under
// the private /tmp starts; it cannot write the workspace, writes its
// TMPDIR and its cache, which persists in catbuddy-servers, not in the
// commands' cache; with namespaces it writes a copy-on-write view of
// the module cache, which does not change, and without them the module
// cache is read-only.
func TestSandboxServer(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		mod := filepath.Join(t.TempDir(), "mod")
		writeTestFile(t, filepath.Join(mod, "example.com", "m@v1.0.0", "m.go"), "package m")
		t.Setenv("GOMODCACHE", mod)
		prog := filepath.Join(t.TempDir(), "server.sh")
		writeTestFile(t, prog, `#!/bin/sh
echo x > keep.txt && echo wrote-workspace
echo x > "$TMPDIR/t" && echo wrote-tmp
mkdir -p "$XDG_CACHE_HOME/srv" && echo x > "$XDG_CACHE_HOME/srv/c" && echo wrote-cache
mkdir -p "$GOMODCACHE/example.com/n@v1.0.0" && echo x > "$GOMODCACHE/example.com/n@v1.0.0/n.go" && cat "$GOMODCACHE/example.com/n@v1.0.0/n.go" "$GOMODCACHE/example.com/m@v1.0.0/m.go" && echo wrote-modcache
echo "cache=$XDG_CACHE_HOME"
`)
		if err := os.Chmod(prog, 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := Prepare(Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{prog}, Policy: Policy{Network: true}, Server: true,
			Environ: func(set map[string]string) []string {
				env, _ := shell.Environ(os.Environ(), nil, set)
				return env
			}})
		if err != nil {
			t.Fatal(err)
		}
		out := shell.NewOutput(30000)
		res, err := shell.Run(t.Context(), r.Cmd, out, 30*time.Second, 200*time.Millisecond)
		r.Cleanup()
		if err != nil {
			t.Fatal(err)
		}
		got := out.String()
		t.Logf("exit %d:\n%s", res.ExitCode, got)
		c.fileIs("keep.txt", "keep")
		cache := filepath.Join(c.home, ".cache", "catbuddy-servers")
		for _, want := range []string{"wrote-tmp", "wrote-cache", "cache=" + cache + "\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("the server's output lacks %q", want)
			}
		}
		if strings.Contains(got, "wrote-workspace") {
			t.Error("the server wrote the workspace")
		}
		if _, err := os.Stat(filepath.Join(cache, "srv", "c")); err != nil {
			t.Errorf("the server's cache did not persist: %v", err)
		}
		if wrote := strings.Contains(got, "x\npackage m"); wrote == splitOnly {
			t.Errorf("module cache writable %v, want %v (a copy-on-write view with namespaces only)", wrote, !splitOnly)
		}
		if _, err := os.Stat(filepath.Join(mod, "example.com", "n@v1.0.0")); err == nil {
			t.Error("the server wrote the user's module cache")
		}
	})
}
