package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListDir(t *testing.T) {
	e := newSearchEnv(t, globTree)
	e.symlink("internal", "linkdir")
	if err := syscall.Mkfifo(filepath.Join(e.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `README.md
cmd/
docs/
empty/
go.mod
internal/
linkdir -> internal
pipe (named pipe)
web/`},
		{map[string]any{"path": "web", "depth": 3}, `web/.gitignore
web/node_modules/ (gitignored)
web/src/
web/src/App.tsx
web/src/index.ts`},
		{map[string]any{"path": "cmd", "depth": 2, "limit": 3}, `cmd/app/
cmd/app/main.go
cmd/tool/
… and 1 more entries (raise limit, lower depth, or list a subdirectory)`},
		{map[string]any{"path": "empty"}, "empty is empty."},
		{map[string]any{"path": "linkdir"}, "internal/a.go\ninternal/a_test.go"},
	}
	for _, c := range cases {
		got := e.ok("list_dir", c.args)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("list_dir %v (-want +got):\n%s", c.args, diff)
		}
	}
	e.fail("list_dir", map[string]any{"path": "go.mod"}, "is a file")
	e.fail("list_dir", map[string]any{"path": "missing"}, `path "missing" does not exist`)
	e.fail("list_dir", map[string]any{"path": ".."}, `Access denied: ".." is outside the workspace`)
	e.fail("list_dir", map[string]any{"path": ".catbuddy"}, "Access denied")
	e.fail("list_dir", map[string]any{"depth": 9}, "depth must be between 1 and 5")
	e.fail("list_dir", map[string]any{"path": "pipe"}, "named pipe")
}

func TestListDirLimitCountsDeep(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "-- a/b%d/c.txt --\nx\n", i)
	}
	e := newSearchEnv(t, b.String())
	got := e.ok("list_dir", map[string]any{"depth": 3, "limit": 2})
	// a/, a/b0/, then 1+29*2 entries left out.
	want := "a/\na/b0/\n… and 59 more entries (raise limit, lower depth, or list a subdirectory)"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
