package changeset

import (
	"context"

	"github.com/catbuddy/cb-ls/internal/safefile"

	"github.com/catbuddy/cb-ls/internal/search"
)

// Search returns the run's pending changes in the folder root, for
// grep and glob to see the run's view (search.Pending): a snapshot, so
// a search sees one state of the set.
func (s *Set) Search(root string) search.Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.pending[root]
	f := s.folders[root]
	if len(idx) == 0 || f == nil {
		return nil
	}
	v := &searchView{replaced: make(map[string]bool, len(idx))}
	for _, rel := range sortedRels(idx) {
		e := idx[rel]
		v.replaced[rel] = true
		if e.kind == KindDeleted && e.group == "" {
			v.deleted = append(v.deleted, rel)
		}
		if e.kind == KindDeleted || e.group != "" {
			continue
		}
		upper, rel := f.layer.Upper, rel
		v.files = append(v.files, search.PendingFile{Rel: rel, Created: e.kind == KindCreated,
			Read: func() ([]byte, error) {
				// Never through a link the command made, never a FIFO.
				b, _, err := safefile.ReadBeneath(context.Background(), upper, rel, safefile.MaxFileSize)
				return b, err
			}})
	}
	return v
}

type searchView struct {
	replaced map[string]bool
	files    []search.PendingFile
	deleted  []string
}

func (v *searchView) Deleted(dir string) []string {
	var out []string
	for _, rel := range v.deleted {
		if search.PendingUnder(dir, rel) {
			out = append(out, rel)
		}
	}
	return out
}

func (v *searchView) Replaced(rel string) bool { return v.replaced[rel] }

func (v *searchView) Files(dir string) []search.PendingFile {
	var out []search.PendingFile
	for _, f := range v.files {
		if search.PendingUnder(dir, f.Rel) {
			out = append(out, f)
		}
	}
	return out
}
