package tools

import (
	"path/filepath"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
)

func TestSearchSecondRoot(t *testing.T) {
	e := newSearchEnv(t, "-- a.txt --\nneedle one\n")
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeArchive(t, other, "-- b/c.txt --\nneedle two\n")
	g, err := guard.New([]string{e.dir, other}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	tc := &ToolContext{Guard: g, Workspace: DiskWorkspace{}}
	reg.Register(Grep(tc))
	reg.Register(Glob(tc))
	e.reg = reg
	// Paths in a second workspace folder are shown absolute, so they can
	// be passed back to any tool as they are.
	got := e.ok("grep", map[string]any{"pattern": "needle", "path": other})
	if want := filepath.Join(other, "b", "c.txt") + "\n1:needle two"; got != want {
		t.Errorf("grep in second root = %q, want %q", got, want)
	}
	got = e.ok("glob", map[string]any{"pattern": "**/*.txt", "path": filepath.Join(other, "b")})
	if want := filepath.Join(other, "b", "c.txt"); got != want {
		t.Errorf("glob in second root = %q, want %q", got, want)
	}
	if got := e.ok("grep", map[string]any{"pattern": "needle"}); got != "a.txt\n1:needle one" {
		t.Errorf("relative search stays in the primary root: %q", got)
	}
}
