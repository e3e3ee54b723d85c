package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

func diskPath(t *testing.T, dir, rel string) guard.Path {
	t.Helper()
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Resolve(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiskApply(t *testing.T) {
	ws := DiskWorkspace{}
	t.Run("stale base refused", func(t *testing.T) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "f"), "now\n")
		p := diskPath(t, dir, "f")
		_, err := ws.Apply(t.Context(), Change{Path: p, Base: Document{Content: []byte("then\n")}, Edits: []TextEdit{{Start: 0, End: 4, NewText: "x"}}, After: []byte("x\n")})
		if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "changed on disk") {
			t.Errorf("err = %v", err)
		}
		if b, _ := os.ReadFile(p.Abs); string(b) != "now\n" {
			t.Errorf("content = %q", b)
		}
	})
	t.Run("create over an existing file refused", func(t *testing.T) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "f"), "theirs\n")
		p := diskPath(t, dir, "f")
		_, err := ws.Apply(t.Context(), Change{Path: p, Create: true, Edits: []TextEdit{{Start: 0, End: 0, NewText: "mine\n"}}, After: []byte("mine\n")})
		if !errors.Is(err, ErrRejected) {
			t.Errorf("err = %v", err)
		}
		if b, _ := os.ReadFile(p.Abs); string(b) != "theirs\n" {
			t.Errorf("content = %q", b)
		}
	})
	t.Run("mode kept, new file gets the umask", func(t *testing.T) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "secret"), "a")
		if err := os.Chmod(filepath.Join(dir, "secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		p := diskPath(t, dir, "secret")
		doc, err := ws.Read(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ws.Apply(t.Context(), Change{Path: p, Base: doc, Edits: []TextEdit{{Start: 0, End: 1, NewText: "b"}}, After: []byte("b")})
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p.Abs); fi.Mode().Perm() != 0o600 || got.Mode != 0o600 {
			t.Errorf("mode = %v (document %v)", fi.Mode().Perm(), got.Mode)
		}
		np := diskPath(t, dir, "sub/new")
		if _, err := ws.Apply(t.Context(), Change{Path: np, Create: true, Edits: []TextEdit{{Start: 0, End: 0, NewText: "n"}}, After: []byte("n")}); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(np.Abs); fi.Mode().Perm()&0o111 != 0 {
			t.Errorf("new file is executable: %v", fi.Mode())
		}
		if names := dirNames(t, dir); len(names) != 2 {
			t.Errorf("leftovers: %v", names)
		}
	})
	t.Run("returned stamp is the file's", func(t *testing.T) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "f"), "a")
		p := diskPath(t, dir, "f")
		doc, _ := ws.Read(t.Context(), p)
		got, err := ws.Apply(t.Context(), Change{Path: p, Base: doc, Edits: []TextEdit{{Start: 0, End: 1, NewText: "bb"}}, After: []byte("bb")})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := ws.Read(t.Context(), p)
		if !again.Stamp.Equal(got.Stamp) {
			t.Errorf("Apply stamp %+v, Read stamp %+v", got.Stamp, again.Stamp)
		}
	})
	t.Run("cancelled context writes nothing", func(t *testing.T) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "f"), "a")
		p := diskPath(t, dir, "f")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := ws.Apply(ctx, Change{Path: p, Base: Document{Content: []byte("a")}, Edits: []TextEdit{{Start: 0, End: 1, NewText: "b"}}, After: []byte("b")}); err == nil {
			t.Error("no error")
		}
		if b, _ := os.ReadFile(p.Abs); string(b) != "a" {
			t.Errorf("content = %q", b)
		}
	})
}

// TestDiskApplyConcurrent: writers racing from the same base — exactly
// one wins, the others are told the file changed.
func TestDiskApplyConcurrent(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "f"), "base\n")
	p := diskPath(t, dir, "f")
	ws := DiskWorkspace{}
	base, err := ws.Read(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			after := []byte(strings.Repeat("x", i+1) + "\n")
			_, errs[i] = ws.Apply(t.Context(), Change{Path: p, Base: base, Edits: []TextEdit{{Start: 0, End: 4, NewText: string(after[:i+1])}}, After: after})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrRejected):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers succeeded from the same base, want 1", won)
	}
}

func TestDiskRead(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "d", "x"), "x")
	big := filepath.Join(dir, "big")
	writeTestFile(t, big, "")
	if err := os.Truncate(big, safefile.MaxFileSize+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	ws := DiskWorkspace{}
	for _, tt := range []struct {
		rel  string
		want error
	}{
		{"d", ErrIsDir},
		{"big", ErrTooLarge},
		{"missing", ErrNotExist},
	} {
		_, err := ws.Read(t.Context(), diskPath(t, dir, tt.rel))
		if !errors.Is(err, tt.want) {
			t.Errorf("Read(%s) = %v, want %v", tt.rel, err, tt.want)
		}
	}
}

// TestWriteThroughSymlink: a link inside the workspace to a file inside
// it is edited at its target, and stays a link.
func TestWriteThroughSymlink(t *testing.T) {
	e := newFileEnv(t, map[string]string{"real.txt": "a\n"})
	if err := os.Symlink("real.txt", e.abs("link.txt")); err != nil {
		testenv.Needs(t, false, "symlinks", err.Error(), "a file system with symlinks")
	}
	e.call("read_file", argMap{"path": "link.txt"})
	res := e.call("edit_file", argMap{"path": "link.txt", "old_string": "a", "new_string": "b"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	if got := e.read("real.txt"); got != "b\n" {
		t.Errorf("target = %q", got)
	}
	if fi, err := os.Lstat(e.abs("link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced by a file: %v %v", fi.Mode(), err)
	}
}

// TestConcurrentRunsSeparateFileStates: two runs over one workspace,
// at once, each with its own FileStates: one run's reads neither
// deduplicate nor excuse the other's.
func TestConcurrentRunsSeparateFileStates(t *testing.T) {
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("f%d", i)] = fmt.Sprintf("value %d\n", i)
	}
	e := newFileEnv(t, files)
	runA := filestate.NewContext(t.Context(), filestate.New())
	runB := filestate.NewContext(t.Context(), filestate.New())
	exec := func(ctx context.Context, name string, a argMap) Result {
		raw, _ := json.Marshal(a)
		res, err := e.reg.Execute(ctx, name, raw)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return res
	}
	var wg sync.WaitGroup
	for _, ctx := range []context.Context{runA, runB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				f := fmt.Sprintf("f%d", i)
				if res := exec(ctx, "read_file", argMap{"path": f}); res.Output == unchangedMessage {
					t.Errorf("first read of %s in this run was deduplicated", f)
				}
				if res := exec(ctx, "read_file", argMap{"path": f}); res.Output != unchangedMessage && !strings.Contains(res.Output, "value") {
					t.Errorf("re-read of %s: %q", f, res.Output)
				}
			}
		}()
	}
	wg.Wait()
	runC := filestate.NewContext(t.Context(), filestate.New())
	res := exec(runC, "edit_file", argMap{"path": "f0", "old_string": "value 0", "new_string": "zero"})
	if !strings.HasPrefix(res.Output, "Warning (edit_file): this file was not read") {
		t.Errorf("a third run inherited the others' reads: %q", res.Output)
	}
	if res := exec(runA, "read_file", argMap{"path": "f0"}); !strings.Contains(res.Output, "zero") {
		t.Errorf("run A after run C's edit: %q", res.Output)
	}
}
