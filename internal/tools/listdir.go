package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/search"
)

//go:embed listdir.md
var listDirDescription string

type listDirInput struct {
	Path  string `json:"path,omitempty"`
	Depth int    `json:"depth,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// ListDir is the list_dir tool.
func ListDir(tc *ToolContext) Tool {
	t := NewTool("list_dir", listDirDescription, func(ctx context.Context, in listDirInput) (Result, error) {
		return tc.listDir(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) listDir(ctx context.Context, in listDirInput) (Result, error) {
	depth := in.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 0 || depth > search.ListMaxDepth {
		return Errorf("depth must be between 1 and %d, not %d", search.ListMaxDepth, in.Depth), nil
	}
	if in.Limit < 0 {
		return Errorf("limit must be positive, not %d", in.Limit), nil
	}
	limit := min(in.Limit, search.ListMaxLimit)
	if limit == 0 {
		limit = search.ListDefaultLimit
	}
	arg := in.Path
	if arg == "" {
		arg = "."
	}
	p, err := tc.Resolve(arg)
	if err != nil {
		return Errorf("%v", err), nil
	}
	lister, err := search.OpenLister(p)
	if err != nil {
		return Errorf("list_dir %s: %v", arg, err), nil
	}
	defer lister.Close()
	st, err := safefile.Stat(p.Root, p.Rel)
	if errors.Is(err, fs.ErrNotExist) {
		return Errorf("path %q does not exist", arg), nil
	}
	if err != nil {
		return Errorf("list_dir %s: %v", arg, err), nil
	}
	if !st.IsDir() {
		return Errorf("path %q is a file, not a directory; use read_file to read it", arg), nil
	}
	disp := search.Displayer(tc.WorkRoot(), p)
	ls := lister.List(ctx, p, depth, limit, disp)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if note := pendingListNote(searchView(ctx, p.Root), p.Rel, disp); note != "" {
		return Text(strings.TrimRight(ls.String(), "\n") + "\n" + note), nil
	}
	if ls.Shown == 0 && ls.More == 0 {
		if ls.Unreadable > 0 {
			return Errorf("list_dir %s: directory could not be read", arg), nil
		}
		return Text(fmt.Sprintf("%s is empty.", disp(p.Rel))), nil
	}
	return Text(ls.String()), nil
}
