package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// tree is a workspace folder of files for a test, with the roots a scan
// of it walks.
type tree struct {
	t     *testing.T
	dir   string // the real path: t.TempDir may sit behind a symlink
	roots []guard.Path
}

func newTree(t *testing.T, files map[string]string) *tree {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeTestFile(t, filepath.Join(dir, name), content)
	}
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	r := g.Roots()[0]
	return &tree{t: t, dir: r, roots: []guard.Path{{Abs: r, Root: r, Rel: "."}}}
}

func (e *tree) abs(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

func (e *tree) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.abs(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// rel renders a path below the folder as a report does.
func (e *tree) rel(abs string) string {
	r, err := filepath.Rel(e.dir, abs)
	if err != nil || strings.HasPrefix(r, "..") {
		return abs
	}
	return filepath.ToSlash(r)
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
