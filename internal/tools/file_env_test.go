package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// fileEnv is a workspace on disk with the built-in tools over it and one
// run's FileStates, for tests of the file tools through Registry.Execute.
type fileEnv struct {
	t      *testing.T
	dir    string
	reg    *Registry
	tc     *ToolContext
	ctx    context.Context
	states *filestate.FileStates

	mu     sync.Mutex
	events []EditEvent
}

func newFileEnv(t *testing.T, files map[string]string) *fileEnv {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeTestFile(t, filepath.Join(dir, name), content)
	}
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	e := &fileEnv{t: t, reg: NewRegistry(), states: filestate.New()}
	e.dir = g.Roots()[0] // the real path: t.TempDir may sit behind a symlink
	e.tc = &ToolContext{Guard: g, Workspace: DiskWorkspace{}}
	e.tc.OnEdit = func(_ context.Context, ev EditEvent) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
	}
	for _, f := range []Factory{ReadFile, EditFile, WriteFile, MultiEdit, ApplyPatch} {
		if err := e.reg.Register(f(e.tc)); err != nil {
			t.Fatal(err)
		}
	}
	e.ctx = filestate.NewContext(t.Context(), e.states)
	return e
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

// call runs one tool call through the registry, as the agent does.
func (e *fileEnv) call(name string, args any) Result {
	e.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.reg.Execute(e.ctx, name, raw)
	if err != nil {
		e.t.Fatalf("%s: run error: %v", name, err)
	}
	return res
}

func (e *fileEnv) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *fileEnv) abs(rel string) string { return filepath.Join(e.dir, rel) }

func (e *fileEnv) phases() []EditPhase {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []EditPhase
	for _, ev := range e.events {
		out = append(out, ev.Phase)
	}
	return out
}

type argMap = map[string]any

// fakeWorkspace wraps another Workspace, records the Changes it is
// given and can refuse them, as an editor whose user says no.
type fakeWorkspace struct {
	Workspace
	reject error // if set, Apply returns it and changes nothing

	mu      sync.Mutex
	changes []Change
}

func (w *fakeWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	w.mu.Lock()
	w.changes = append(w.changes, c)
	w.mu.Unlock()
	if w.reject != nil {
		return Document{}, w.reject
	}
	return w.Workspace.Apply(ctx, c)
}

func (w *fakeWorkspace) last(t *testing.T) Change {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.changes) == 0 {
		t.Fatal("no change reached the workspace")
	}
	return w.changes[len(w.changes)-1]
}

// useFake puts a fakeWorkspace in front of the disk.
func (e *fileEnv) useFake() *fakeWorkspace {
	w := &fakeWorkspace{Workspace: DiskWorkspace{}}
	e.tc.Workspace = w
	return w
}
