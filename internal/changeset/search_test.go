package changeset

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// grep and glob see the run's view: its edits and created files, not
// what it deleted, and not the disk's text of what it changed.
func TestSearchSeesThePendingView(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc, "old.go": "package calc // old\n"})
	ctx := context.Background()
	fx.edit(fx.view, "calc.go", "return 1 }", "return 10 }")
	p := fx.path("gen.go")
	if _, err := fx.view.Apply(ctx, tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: "package calc // generated return 10 }\n"}}, After: []byte("package calc // generated return 10 }\n")}); err != nil {
		t.Fatal(err)
	}
	old := fx.path("old.go")
	doc, _ := fx.view.Read(ctx, old)
	if _, err := fx.view.Apply(ctx, tools.Change{Path: old, Base: doc, Delete: true}); err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	_ = reg.Register(tools.Grep(tc))
	_ = reg.Register(tools.Glob(tc))
	_ = reg.Register(tools.ListDir(tc))
	rctx := tools.WithRunView(ctx, tools.RunView{Workspace: fx.view, Search: fx.set.Search})
	call := func(name string, args map[string]any) string {
		b, _ := json.Marshal(args)
		res, err := reg.Execute(rctx, name, b)
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	got := call("grep", map[string]any{"pattern": "return 10 }", "literal": true, "output_mode": "files_with_matches"})
	if !strings.Contains(got, "calc.go") || !strings.Contains(got, "gen.go") {
		t.Errorf("grep misses the pending files:\n%s", got)
	}
	if got := call("grep", map[string]any{"pattern": "return 1 }", "literal": true}); strings.Contains(got, "calc.go") {
		t.Errorf("grep found the disk's text of a pending file:\n%s", got)
	}
	got = call("glob", map[string]any{"pattern": "*.go"})
	if !strings.Contains(got, "gen.go") || strings.Contains(got, "old.go") || !strings.Contains(got, "calc.go") {
		t.Errorf("glob does not list the run's view:\n%s", got)
	}
	got = call("list_dir", map[string]any{})
	if !strings.Contains(got, "pending the user's review: created gen.go; deleted old.go") {
		t.Errorf("list_dir does not tell the run's view:\n%s", got)
	}
}
