package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Limits of a glob.
const (
	GlobDefaultLimit = 500
	GlobMaxLimit     = 10000
)

// Glob is a validated file name search.
type Glob struct {
	pattern string
	globs   Globs
	limit   int
	// includeIgnored lists what is left out by default (.gitignored
	// files, node_modules and lockfiles); deps only the latter.
	includeIgnored, deps bool
	// pending, if set, is the run's view over the disk (pending.go).
	pending Pending
}

// NewGlob checks pattern (relative, staying below the directory
// searched) and limit (0 for the default); its errors are meant for the
// model as they are. includeIgnored lists files .gitignore names,
// node_modules and lockfiles too.
func NewGlob(pattern string, limit int, includeIgnored bool) (*Glob, error) {
	if path.IsAbs(pattern) || strings.HasPrefix(pattern, "../") || strings.Contains(pattern, "/../") {
		return nil, fmt.Errorf("pattern %q must be relative and stay below path; put the directory in path instead", pattern)
	}
	gs, err := CompileGlobs(pattern)
	if err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("limit must be positive, not %d", limit)
	}
	limit = min(limit, GlobMaxLimit)
	if limit == 0 {
		limit = GlobDefaultLimit
	}
	deps := includeIgnored || AsksForDependencies(pattern)
	return &Glob{pattern: pattern, globs: gs, limit: limit, includeIgnored: includeIgnored, deps: deps}, nil
}

// Run lists the paths below the directory p that match, sorted, as the
// model reads them (directories end with "/"); where names p in the
// output. The error is the walk's (ctx's, when cancelled).
func (g *Glob) Run(ctx context.Context, p guard.Path, disp Display, where string) (string, error) {
	var mu sync.Mutex
	var found []string
	stats, err := Walk(ctx, p, Options{NoIgnore: g.includeIgnored, SkipDependencies: !g.deps && !insideDependencies(p.Rel)}, func(_ int, _ *safefile.Dir, e Entry) {
		if !g.globs.Match(relTo(p.Rel, e.Rel)) || replaced(g.pending, e.Rel) {
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
		return "", err
	}
	for _, f := range pendingBelow(g.pending, p.Rel) {
		if g.globs.Match(relTo(p.Rel, f.Rel)) {
			found = append(found, disp(f.Rel))
		}
	}
	if len(found) == 0 {
		msg := fmt.Sprintf("No files match %q in %q.", g.pattern, where)
		if g.globs.Negated() {
			msg = fmt.Sprintf("The glob %q excludes every file in %q: nothing is left to list.", g.pattern, where)
		}
		if n := stats.Unreadable.Load(); n > 0 {
			msg += fmt.Sprintf(" (%d directories could not be read)", n)
		}
		if stats.Dependencies.Load() > 0 {
			msg += " (" + DependencyNote + ")"
		}
		return msg, nil
	}
	slices.Sort(found)
	var b strings.Builder
	for _, f := range found[:min(g.limit, len(found))] {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if rest := len(found) - g.limit; rest > 0 {
		fmt.Fprintf(&b, "… and %d more paths (%d in all; narrow the pattern or path, or raise limit)\n", rest, len(found))
	}
	if n := stats.Unreadable.Load(); n > 0 {
		fmt.Fprintf(&b, "(%d directories could not be read)\n", n)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
