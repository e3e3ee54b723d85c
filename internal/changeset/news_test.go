package changeset

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// A hunk the user discards while the run goes on is named in the run's
// next tool result, once.
func TestDiscardMidRunIsToldInTheNextToolResult(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 2", "return 20")
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	_ = reg.Register(tools.ReadFile(tc))
	ctx := tools.WithRunView(context.Background(), tools.RunView{Workspace: fx.view, News: fx.set.TakeNews})
	args, _ := json.Marshal(map[string]any{"path": "calc.go"})
	res, err := reg.Execute(ctx, "read_file", args)
	if err != nil {
		t.Fatal(err)
	}
	want := `[The user discarded hunk 1 of calc.go (line 5: "func B() int { return 2 }" → "func B() int { return 20 }").]`
	if !strings.HasSuffix(res.Output, want) || !strings.Contains(res.Output, "return 2 }") {
		t.Fatalf("the next tool result:\n%s\nwant it to end with %s", res.Output, want)
	}
	if res, _ := reg.Execute(ctx, "read_file", args); strings.Contains(res.Output, "discarded") {
		t.Fatalf("the news was told twice:\n%s", res.Output)
	}
}
