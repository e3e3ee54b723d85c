package tools

import (
	"context"

	"github.com/catbuddy/cb-ls/internal/search"
)

const globDescription = `Find files by name pattern. Returns matching paths relative to the workspace root, sorted; directories end with "/".

- pattern: a glob relative to path. "*" and "?" match within one path segment, "**" any number of segments, "[abc]" a set, "{a,b}" alternatives. Examples: "**/*.go", "src/**/*.{ts,tsx}", "cmd/*/main.go". A pattern without "/" matches file names at any depth ("*.md" = "**/*.md").
- path: the directory to search in (default: the workspace root).
- limit: the most paths to show (default 500).

Files ignored by .gitignore, .git/ and .catbuddy/ are skipped; symlinks are listed but not followed.`

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"glob such as **/*.go or src/**/*.{ts,tsx}"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search in; default the workspace root"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most paths to show; default 500"`
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
	g, err := search.NewGlob(in.Pattern, in.Limit)
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
	out, err := g.Run(ctx, p, search.Displayer(tc.WorkRoot(), p), arg)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("glob %s: %v", arg, err), nil
	}
	return Text(out), nil
}
