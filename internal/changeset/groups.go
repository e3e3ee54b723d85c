package changeset

import (
	"path"
	"strings"

	"github.com/catbuddy/cb-ls/internal/search"
)

// A command's ignored outputs (what .gitignore leaves out: build
// directories, node_modules/, caches) are not read hunk by hunk: an
// `npm install` makes thousands of files. Each is grouped under its
// topmost ignored directory, node_modules/ (1,234 files), and kept or
// discarded as a whole.

// grouper finds the group of a path in one folder, asking the folder's
// .gitignore files once per directory.
type grouper struct {
	ig   *search.Ignorer
	dirs map[string]bool // directory → ignored
}

func newGrouper(root string) *grouper {
	return &grouper{ig: search.NewIgnorer(root), dirs: map[string]bool{}}
}

// group returns the group rel belongs to: its topmost ignored directory,
// or rel itself when the file is ignored, or "" when it is reviewed.
func (g *grouper) group(rel string) string {
	parts := strings.Split(rel, "/")
	dir := ""
	for _, p := range parts[:len(parts)-1] {
		dir = path.Join(dir, p)
		ign, ok := g.dirs[dir]
		if !ok {
			ign = g.ig.Ignored(dir, true) || search.IsDependency(p, true)
			g.dirs[dir] = ign
		}
		if ign {
			return dir
		}
	}
	if g.ig.Ignored(rel, false) {
		return rel
	}
	return ""
}
