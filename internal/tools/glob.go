package tools

import (
	"context"
	_ "embed"

	"github.com/catbuddy/cb-ls/internal/search"
)

//go:embed glob.md
var globDescription string

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	// IncludeIgnored lists what is skipped by default.
	IncludeIgnored bool `json:"include_ignored,omitempty"`
}

// Glob is the glob tool: .gitignore-aware file name matching with **.
func Glob(tc *ToolContext) Tool {
	t := NewTool("glob", globDescription, func(ctx context.Context, in globInput) (Result, error) {
		return tc.glob(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) glob(ctx context.Context, in globInput) (Result, error) {
	g, err := search.NewGlob(in.Pattern, in.Limit, in.IncludeIgnored)
	if err != nil {
		return Errorf("%v", err), nil
	}
	arg := in.Path
	p, st, fail := tc.resolveSearchPath("glob", arg)
	if fail != nil {
		return *fail, nil
	}
	if arg == "" {
		arg = "."
	}
	if !st.IsDir() {
		return Errorf("path %q is a file, not a directory; glob searches directories", arg), nil
	}
	out, err := g.WithPending(searchView(ctx, p.Root)).Run(ctx, p, search.Displayer(tc.WorkRoot(), p), arg)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("glob %s: %v", arg, err), nil
	}
	return Text(out), nil
}
