package headless

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// How the words of cb-ls changes name what is pending: the first is the
// run when the store knows a run of that id; every other names a
// pending file, a group (node_modules), or a folder with pending files
// beneath it, relative to the first root or absolute. A word that names
// nothing pending is an error, never an empty selection: an empty
// selection means everything.

// splitRunID takes the run id off args when the store has that run.
func splitRunID(store *changeset.Store, args []string) (runID string, names []string) {
	if len(args) > 0 {
		if _, ok := store.Get(args[0]); ok {
			return args[0], args[1:]
		}
	}
	return "", args
}

// runIDShape is a run id as cb-ls makes them (session.NewRunID).
var runIDShape = regexp.MustCompile(`^r[0-9a-f]{6,16}$`)

// looksLikeRunID reports whether the first of names is shaped like a
// run id: a run that is not here, most likely, rather than a file.
func looksLikeRunID(names []string) bool {
	return len(names) > 0 && runIDShape.MatchString(names[0])
}

// matchAll matches names in set (nil, meaning all, when there are
// none); a name that matches nothing is reported and gives exit
// status 1, one outside the workspace 2.
func matchAll(g *guard.PathGuard, set *changeset.Set, names []string, stderr io.Writer) ([]changeset.File, int) {
	if len(names) == 0 {
		return nil, 0
	}
	files, err := matchFiles(g, set, names)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return nil, 2
	}
	for _, name := range names {
		if len(matchName(g, set.Files(), name)) == 0 {
			fmt.Fprintf(stderr, "cb-ls changes: %s has no pending change in run %s\n", diff.QuoteName(name), set.RunID())
			return nil, 1
		}
	}
	return files, 0
}

// matchFiles returns set's pending files that names name, each once,
// in the set's order; an error when a name lies outside the workspace.
func matchFiles(g *guard.PathGuard, set *changeset.Set, names []string) ([]changeset.File, error) {
	all := set.Files()
	chosen := map[int]bool{}
	for _, name := range names {
		if filepath.IsAbs(name) {
			if _, err := g.Resolve(name); err != nil {
				return nil, err
			}
		}
		for _, i := range matchName(g, all, name) {
			chosen[i] = true
		}
	}
	var out []changeset.File
	for i, f := range all {
		if chosen[i] {
			out = append(out, f)
		}
	}
	return out, nil
}

// matchName returns the indices of files that name names: the file or
// group itself, or those beneath the folder it names.
func matchName(g *guard.PathGuard, files []changeset.File, name string) []int {
	rel, abs := "", ""
	if filepath.IsAbs(name) {
		abs = filepath.Clean(name)
		if p, err := g.Resolve(name); err == nil {
			abs = p.Abs
		}
	} else {
		rel = path.Clean(filepath.ToSlash(name))
	}
	var out []int
	for i, f := range files {
		switch {
		case rel != "" && f.Path.Root == g.Roots()[0] && within(f.Path.Rel, rel, "/"),
			abs != "" && within(f.Path.Abs, abs, string(filepath.Separator)):
			out = append(out, i)
		}
	}
	return out
}

// within reports whether p is dir or lies beneath it.
func within(p, dir, sep string) bool {
	return p == dir || dir == "." || strings.HasPrefix(p, strings.TrimSuffix(dir, sep)+sep)
}

// pendingSomewhere reports whether name names something pending in any
// of sets.
func pendingSomewhere(g *guard.PathGuard, sets []*changeset.Set, name string) bool {
	for _, set := range sets {
		if len(matchName(g, set.Files(), name)) > 0 {
			return true
		}
	}
	return false
}

// selectionOf is the selection of files: everything when files is nil.
func selectionOf(files []changeset.File) changeset.Selection {
	var sel changeset.Selection
	for _, f := range files {
		sel.Files = append(sel.Files, f.Path)
	}
	return sel
}
