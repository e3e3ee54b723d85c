package tools

import (
	"errors"
	"io/fs"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// resolveSearchPath admits arg (default: the work root) through the guard
// and stats it, for the tools that search below a path. A non-nil Result
// is the error answer for the model.
func (tc *ToolContext) resolveSearchPath(tool, arg string) (guard.Path, fs.FileInfo, *Result) {
	if arg == "" {
		arg = "."
	}
	p, err := tc.Resolve(arg)
	if err != nil {
		r := Errorf("%v", err)
		return p, nil, &r
	}
	st, err := safefile.Stat(p.Root, p.Rel)
	if errors.Is(err, fs.ErrNotExist) {
		r := Errorf("path %q does not exist", arg)
		return p, nil, &r
	}
	if err != nil {
		r := Errorf("%s %s: %v", tool, arg, err)
		return p, nil, &r
	}
	return p, st, nil
}
