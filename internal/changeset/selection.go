package changeset

import (
	"slices"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Selection names what to keep or discard: the files (every hunk of
// each, or the group) and the hunks or groups by ID. Both empty means
// everything pending. Conflicts says how a keep resolves the chosen
// hunks that conflict with the user's text (resolve.go); ResolveNone
// leaves them pending. Discard ignores it.
type Selection struct {
	Files     []guard.Path
	Hunks     []string
	Conflicts Resolution
}

// all reports whether sel names nothing, hence everything.
func (sel Selection) all() bool { return len(sel.Files) == 0 && len(sel.Hunks) == 0 }

// fileChosen reports whether sel names f as a whole.
func (sel Selection) fileChosen(f File) bool {
	if sel.all() {
		return true
	}
	for _, p := range sel.Files {
		if p.Abs == f.Path.Abs || (p.Root == f.Path.Root && p.Rel == f.Path.Rel) {
			return true
		}
	}
	return f.Group != nil && slices.Contains(sel.Hunks, f.Group.ID)
}

// chosen returns the indices of f's hunks sel names.
func (sel Selection) chosen(f File) []int {
	whole := sel.fileChosen(f)
	var out []int
	for i, h := range f.Hunks {
		if whole || slices.Contains(sel.Hunks, h.ID) {
			out = append(out, i)
		}
	}
	return out
}

// unknown returns the hunk IDs of sel that name nothing in files.
func (sel Selection) unknown(files []File) []string {
	var out []string
	for _, id := range sel.Hunks {
		found := false
		for _, f := range files {
			if f.Group != nil && f.Group.ID == id {
				found = true
			}
			for _, h := range f.Hunks {
				if h.ID == id {
					found = true
				}
			}
		}
		if !found {
			out = append(out, id)
		}
	}
	return out
}
