package changeset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// keepGroup writes a group of ignored outputs to the disk, all files
// at once (tools.DiskWorkspace.ApplyAll: all or nothing), and drops it
// from the layer.
func (s *Set) keepGroup(ctx context.Context, g File) error {
	s.mu.Lock()
	f := s.folders[g.Path.Root]
	var cs []tools.Change
	var rels []string
	for _, rel := range sortedRels(s.pending[g.Path.Root]) {
		e := s.pending[g.Path.Root][rel]
		if e.group != g.Path.Rel {
			continue
		}
		p := pathOf(g.Path.Root, rel)
		cur, err := os.ReadFile(p.Abs)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.mu.Unlock()
			return fmt.Errorf("read %s: %w", rel, err)
		}
		c := tools.Change{Path: p, Base: tools.Document{Content: cur}, Label: "keep " + rel}
		if e.kind == KindDeleted {
			if !exists {
				rels = append(rels, rel)
				continue
			}
			c.Delete = true
		} else {
			data, _, ok := f.readUpper(rel)
			if !ok {
				continue // not a regular file (a link): left in the layer
			}
			c.After, c.Create = data, !exists
			c.Edits = []tools.TextEdit{{Start: 0, End: len(cur), NewText: string(data)}}
		}
		cs = append(cs, c)
		rels = append(rels, rel)
	}
	s.mu.Unlock()
	if _, err := (tools.DiskWorkspace{}).ApplyAll(ctx, cs); err != nil {
		return fmt.Errorf("%s/ was not kept: %w", g.Path.Rel, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rel := range rels {
		s.revertLayer(pathOf(g.Path.Root, rel))
	}
	s.files = nil
	return s.saveAll()
}
