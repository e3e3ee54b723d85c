package lsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// writeTree writes a txtar workspace into a new temporary directory and
// returns its real path.
func writeTree(t testing.TB, archive string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testTools registers the built-ins plus two probes that reach the
// Workspace directly, so tests can assert on exact bytes:
//
//	test_read  {path}                          → the document's content as the tools see it
//	test_apply {path, start, end, text, create} → Workspace.Apply of one edit
func testTools(reg *tools.Registry, tc *tools.ToolContext) error {
	if err := tools.RegisterBuiltins(reg, tc); err != nil {
		return err
	}
	type readIn struct {
		Path string `json:"path"`
	}
	if err := reg.Register(tools.NewTool("test_read", "probe", func(ctx context.Context, in readIn) (tools.Result, error) {
		p, err := tc.Resolve(in.Path)
		if err != nil {
			return tools.Result{}, err
		}
		doc, err := tc.Workspace.Read(ctx, p)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Text(string(doc.Content)), nil
	})); err != nil {
		return err
	}
	type applyIn struct {
		Path   string `json:"path"`
		Start  int    `json:"start,omitempty"`
		End    int    `json:"end,omitempty"`
		Text   string `json:"text,omitempty"`
		Create bool   `json:"create,omitempty"`
	}
	return reg.Register(tools.NewTool("test_apply", "probe", func(ctx context.Context, in applyIn) (tools.Result, error) {
		p, err := tc.Resolve(in.Path)
		if err != nil {
			return tools.Result{}, err
		}
		c := tools.Change{Path: p, Create: in.Create, Label: "test_apply " + p.Rel}
		if in.Create {
			c.After = []byte(in.Text)
		} else {
			base, err := tc.Workspace.Read(ctx, p)
			if err != nil {
				return tools.Result{}, err
			}
			c.Base = base
			c.Edits = []tools.TextEdit{{Start: in.Start, End: in.End, NewText: in.Text}}
			c.After = append(append(append([]byte(nil), base.Content[:in.Start]...), in.Text...), base.Content[in.End:]...)
		}
		doc, err := tc.Workspace.Apply(ctx, c)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Text(fmt.Sprintf("applied open=%v version=%d", doc.Open, doc.Stamp.Version)), nil
	}))
}

// newEditor starts a fake editor over folders with the probe tools.
func newEditor(t testing.TB, folders ...string) *fake.Editor {
	t.Helper()
	return fake.New(t, fake.Options{Folders: folders, Server: lsp.Options{RegisterTools: testTools}})
}

// readProbe returns what the tools see at path.
func readProbe(t *testing.T, e *fake.Editor, path string) string {
	t.Helper()
	out, isErr := e.RunTool("test_read", map[string]string{"path": path})
	if isErr {
		t.Fatalf("test_read %s: %s", path, out)
	}
	return out
}

// pathOf is the file a URI from the server names.
func pathOf(t testing.TB, u uri.URI) string {
	t.Helper()
	p, err := fileuri.ToPath(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
