package tools

import (
	"context"
	_ "embed"

	"github.com/catbuddy/cb-ls/internal/search"
)

//go:embed grep.md
var grepDescription string

type grepInput struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path,omitempty"`
	Glob            string `json:"glob,omitempty"`
	Include         string `json:"include,omitempty"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty"`
	Literal         bool   `json:"literal,omitempty"`
	Context         int    `json:"context,omitempty"`
	OutputMode      string `json:"output_mode,omitempty"`
	Limit           int    `json:"limit,omitempty"`
	IncludeIgnored  bool   `json:"include_ignored,omitempty"`
}

// Grep is the grep tool: a parallel, .gitignore-aware regexp search.
func Grep(tc *ToolContext) Tool {
	t := NewTool("grep", grepDescription, func(ctx context.Context, in grepInput) (Result, error) {
		return tc.grep(ctx, in)
	})
	t.ReadOnly = true
	t.InputSchema = withEnum(t.InputSchema, "output_mode", []string{"content", "files_with_matches", "count"})
	t.InputSchema = withoutProperty(t.InputSchema, "include")
	return t
}

func (tc *ToolContext) grep(ctx context.Context, in grepInput) (Result, error) {
	g, err := search.NewGrep(search.GrepQuery{
		Pattern: in.Pattern, Literal: in.Literal, CaseInsensitive: in.CaseInsensitive,
		Glob: in.Glob, Include: in.Include,
		Context: in.Context, OutputMode: in.OutputMode, Limit: in.Limit,
		IncludeIgnored: in.IncludeIgnored,
	})
	if err != nil {
		return Errorf("%v", err), nil
	}
	arg := in.Path
	p, st, fail := tc.resolveSearchPath("grep", arg)
	if fail != nil {
		return *fail, nil
	}
	if arg == "" {
		arg = "."
	}
	disp := search.Displayer(tc.WorkRoot(), p)
	if !st.IsDir() {
		// One named file: ask the Workspace, so an open editor buffer is
		// searched as the user sees it.
		doc, err := tc.workspace(ctx).Read(ctx, p)
		if err != nil {
			return Errorf("grep %s: %v", arg, err), nil
		}
		return Text(g.File(disp(p.Rel), doc.Content, arg)), nil
	}
	out, err := g.WithPending(searchView(ctx, p.Root)).Tree(ctx, p, disp, arg)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("grep %s: %v", arg, err), nil
	}
	return Text(out), nil
}
