package search

import (
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// A run whose changes wait for the user's review (internal/changeset)
// sees its own view of the files: what it created and changed, not
// what the disk holds, and not what it deleted. The searches walk the
// disk; Pending lets them see the run's view instead, with a check per
// file the walk finds (one map lookup) and the run's files searched
// after the walk.

// Pending is a run's pending changes in one folder.
type Pending interface {
	// Replaced reports whether the run changed or deleted rel (relative
	// to the folder): the walk's copy is not the run's.
	Replaced(rel string) bool
	// Files lists the run's created or changed files below dir
	// (relative to the folder; "." for all), in order. Ignored outputs
	// (node_modules/, build directories) are left out, as the walk
	// leaves them out by default.
	Files(dir string) []PendingFile
	// Deleted lists the files below dir the run deleted, in order.
	Deleted(dir string) []string
}

// PendingFile is one file of a run's view.
type PendingFile struct {
	Rel     string
	Created bool
	// Read returns the file's pending content.
	Read func() ([]byte, error)
}

// WithPending makes g search the run's view (nil: the disk alone).
func (g *Grep) WithPending(p Pending) *Grep {
	g.pending = p
	return g
}

// WithPending makes g list the run's view (nil: the disk alone).
func (g *Glob) WithPending(p Pending) *Glob {
	g.pending = p
	return g
}

// replaced reports whether the walk's rel is not the run's.
func replaced(p Pending, rel string) bool {
	return p != nil && p.Replaced(rel)
}

// pendingBelow lists p's files below dir.
func pendingBelow(p Pending, dir string) []PendingFile {
	if p == nil {
		return nil
	}
	return p.Files(dir)
}

// PendingUnder reports whether rel lies in dir (both relative to the
// folder, "." for the folder itself).
func PendingUnder(dir, rel string) bool {
	return dir == "." || dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// searchPending searches the run's files below p, after the walk
// (which skipped the disk's copies of them).
func (g *Grep) searchPending(p guard.Path, disp Display, col *grepCollector) {
	for _, f := range pendingBelow(g.pending, p.Rel) {
		if g.q.globs != nil && !g.q.globs.Match(relTo(p.Rel, f.Rel)) {
			continue
		}
		col.searched.Add(1)
		content, err := f.Read()
		if err != nil {
			col.unreadable.Add(1)
			continue
		}
		if safefile.HasNUL(content) {
			col.binary.Add(1)
			continue
		}
		if h := searchBuffer(g.q, disp(f.Rel), content, col.keep(), nil); h.count > 0 {
			col.add(h)
		}
	}
}
