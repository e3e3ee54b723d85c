package search

import (
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Display turns a slash path relative to a search's boundary root into
// the path the model sees.
type Display func(rel string) string

// Displayer returns the Display for searches below p: paths relative to
// the work root when inside it, absolute otherwise (a second workspace
// folder), so that every path shown can be passed back to a tool as is.
func Displayer(work string, p guard.Path) Display {
	return func(rel string) string {
		abs := p.Root
		if rel != "." && rel != "" {
			abs = filepath.Join(p.Root, filepath.FromSlash(rel))
		}
		if r, err := filepath.Rel(work, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
		return abs
	}
}
