package tools

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
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

const (
	globDefaultLimit = 500
	globMaxLimit     = 10000
)

// Glob is the glob tool: .gitignore-aware file name matching with **.
func Glob(tc *ToolContext) Tool {
	t := NewTool("glob", globDescription, func(ctx context.Context, in globInput) (Result, error) {
		return tc.glob(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) glob(ctx context.Context, in globInput) (Result, error) {
	if path.IsAbs(in.Pattern) || strings.HasPrefix(in.Pattern, "../") || strings.Contains(in.Pattern, "/../") {
		return Errorf("pattern %q must be relative and stay below path; put the directory in path instead", in.Pattern), nil
	}
	gs, err := compileGlobs(in.Pattern)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if in.Limit < 0 {
		return Errorf("limit must be positive, not %d", in.Limit), nil
	}
	limit := min(in.Limit, globMaxLimit)
	if limit == 0 {
		limit = globDefaultLimit
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
	disp := displayer(tc.WorkRoot(), p)
	var mu sync.Mutex
	var found []string
	stats, err := walkTree(ctx, p, walkOptions{}, func(_ int, _ *dirFD, e walkEntry) {
		if !matchAny(gs, relTo(p.Rel, e.Rel)) {
			return
		}
		s := disp(e.Rel)
		if e.Type.IsDir() {
			s += "/"
		}
		mu.Lock()
		found = append(found, s)
		mu.Unlock()
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("glob %s: %v", arg, err), nil
	}
	if len(found) == 0 {
		msg := fmt.Sprintf("No files match %q in %q.", in.Pattern, arg)
		if n := stats.Unreadable.Load(); n > 0 {
			msg += fmt.Sprintf(" (%d directories could not be read)", n)
		}
		return Text(msg), nil
	}
	slices.Sort(found)
	var b strings.Builder
	for _, f := range found[:min(limit, len(found))] {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if rest := len(found) - limit; rest > 0 {
		fmt.Fprintf(&b, "… and %d more paths (%d in all; narrow the pattern or path, or raise limit)\n", rest, len(found))
	}
	if n := stats.Unreadable.Load(); n > 0 {
		fmt.Fprintf(&b, "(%d directories could not be read)\n", n)
	}
	return Text(strings.TrimRight(b.String(), "\n")), nil
}
