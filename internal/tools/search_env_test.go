package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"golang.org/x/tools/txtar"
)

// searchEnv is a workspace written from a txtar archive with the search
// tools registered over it.
type searchEnv struct {
	t   *testing.T
	dir string // real path of the root
	reg *Registry
}

func newSearchEnv(t *testing.T, archive string) *searchEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeArchive(t, dir, archive)
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	tc := &ToolContext{Guard: g, Workspace: DiskWorkspace{}}
	for _, f := range []Factory{Grep, Glob, ListDir} {
		if err := reg.Register(f(tc)); err != nil {
			t.Fatal(err)
		}
	}
	return &searchEnv{t: t, dir: dir, reg: reg}
}

func writeArchive(t *testing.T, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if strings.HasSuffix(f.Name, "/") { // an empty directory
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs a tool through the registry and fails on a Go error.
func (e *searchEnv) call(name string, args any) Result {
	e.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.reg.Execute(context.Background(), name, raw)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok runs a tool that must succeed and returns its output.
func (e *searchEnv) ok(name string, args any) string {
	e.t.Helper()
	res := e.call(name, args)
	if res.IsError {
		e.t.Fatalf("%s %v: error %s", name, args, res.Output)
	}
	return res.Output
}

// fail runs a tool that must fail and checks the message.
func (e *searchEnv) fail(name string, args any, want string) {
	e.t.Helper()
	res := e.call(name, args)
	if !res.IsError || !strings.Contains(res.Output, want) {
		e.t.Errorf("%s %v = %q (error %v), want an error containing %q", name, args, res.Output, res.IsError, want)
	}
}

func (e *searchEnv) symlink(target, name string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		e.t.Fatal(err)
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
