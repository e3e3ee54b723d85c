package changeset

import (
	"context"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/safefile"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// ViewFiles lists the run's pending files, created, changed and
// deleted, with how to read the run's content of each (tools.RunView
// Files): the language servers a headless session starts are shown
// them before each question. The grouped ignored outputs (build
// directories, node_modules/) are left out: a language server does not
// read them as the project's source, and there may be thousands.
func (s *Set) ViewFiles() []tools.ViewFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tools.ViewFile
	for _, root := range s.sortedRoots() {
		f := s.folders[root]
		idx := s.pending[root]
		for _, rel := range sortedRels(idx) {
			e := idx[rel]
			if e.group != "" {
				continue
			}
			abs := filepath.Join(root, filepath.FromSlash(rel))
			if e.kind == KindDeleted {
				out = append(out, tools.ViewFile{Path: abs, Deleted: true})
				continue
			}
			upper, rel := f.layer.Upper, rel
			out = append(out, tools.ViewFile{Path: abs, Read: func() ([]byte, error) {
				// Never through a link the command made, never a FIFO.
				b, _, err := safefile.ReadBeneath(context.Background(), upper, rel, safefile.MaxFileSize)
				return b, err
			}})
		}
	}
	return out
}
