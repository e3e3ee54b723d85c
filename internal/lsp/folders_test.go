package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// TestMultiRootBoundaries: every workspace folder is inside the boundary,
// anything else is refused, and a removed folder is refused from the next
// call on.
func TestMultiRootBoundaries(t *testing.T) {
	one := writeTree(t, "-- a.txt --\nin one\n")
	two := writeTree(t, "-- b.txt --\nin two\n")
	outside := writeTree(t, "-- secret.txt --\nnope\n")
	e := newEditor(t, one, two)

	if got := readProbe(t, e, "a.txt"); got != "in one\n" {
		t.Errorf("relative path resolves against the first folder: %q", got)
	}
	if got := readProbe(t, e, filepath.Join(two, "b.txt")); got != "in two\n" {
		t.Errorf("second folder: %q", got)
	}
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(outside, "secret.txt")}); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Errorf("outside path: %q (error=%v)", out, isErr)
	}
	if out, isErr := e.RunTool("test_read", map[string]string{"path": "../" + filepath.Base(outside) + "/secret.txt"}); !isErr {
		t.Errorf("escape with ..: %q", out)
	}

	e.Notify(protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: fileuri.FromPath(two), Name: "two"}},
		Added:   []protocol.WorkspaceFolder{{URI: fileuri.FromPath(outside), Name: "outside"}},
	}})
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(two, "b.txt")}); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Errorf("removed folder still readable: %q (error=%v)", out, isErr)
	}
	if got := readProbe(t, e, filepath.Join(outside, "secret.txt")); got != "nope\n" {
		t.Errorf("added folder: %q", got)
	}
}

// TestSingleFileSession: with no folder, the first opened file's
// directory is the boundary.
func TestSingleFileSession(t *testing.T) {
	dir := writeTree(t, "-- notes/todo.txt --\ntodo\n-- other/x.txt --\nx\n")
	e := fake.New(t, fake.Options{Server: lsp.Options{RegisterTools: testTools}})
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(dir, "notes/todo.txt")}); !isErr || !strings.Contains(out, "no workspace folder") {
		t.Errorf("before any file is open: %q (error=%v)", out, isErr)
	}
	e.OpenFile(filepath.Join(dir, "notes", "todo.txt"))
	if got := readProbe(t, e, "todo.txt"); got != "todo\n" {
		t.Errorf("the file's own directory: %q", got)
	}
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(dir, "other", "x.txt")}); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Errorf("outside the file's directory: %q (error=%v)", out, isErr)
	}
}

// TestSingleFileInHomeIsInternal: a lone file in the home directory gets
// internal mode: only .catbuddy/workspace is reachable.
func TestSingleFileInHomeIsInternal(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := fake.New(t, fake.Options{Server: lsp.Options{RegisterTools: testTools}})
	e.OpenFile(filepath.Join(home, ".bashrc"))
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(home, ".bashrc")}); !isErr {
		t.Errorf("home directory file readable in a single-file session: %q", out)
	}
}

func TestModeInitializationOption(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nproject file\n")
	e := fake.New(t, fake.Options{Folders: []string{dir}, InitializationOptions: map[string]any{"mode": "internal"}, Server: lsp.Options{RegisterTools: testTools}})
	if out, isErr := e.RunTool("test_read", map[string]string{"path": filepath.Join(dir, "a.txt")}); !isErr {
		t.Errorf("internal mode read a project file: %q", out)
	}
	bad := fake.New(t, fake.Options{NoInitialize: true, Server: lsp.Options{RegisterTools: testTools}})
	err := bad.Call(protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}, "initializationOptions": map[string]any{"mode": "wild"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("bad mode: %v", err)
	}
}
