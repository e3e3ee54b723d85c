package changeset

import (
	"slices"
)

// Files returns the pending files, by folder and path: reviewed files
// with their hunks, and groups of ignored outputs. A file whose pending
// content equals its base has nothing pending and is not listed.
func (s *Set) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.filesLocked())
}

// filesLocked computes Files, or returns them as last computed. s.mu is
// held.
func (s *Set) filesLocked() []File {
	if s.files != nil {
		return s.files
	}
	out := []File{}
	for _, root := range s.sortedRoots() {
		f := s.folders[root]
		idx := s.pending[root]
		groups := map[string]*File{}
		for _, rel := range sortedRels(idx) {
			e := idx[rel]
			if e.group != "" {
				g, ok := groups[e.group]
				if !ok {
					g = &File{Path: pathOf(root, e.group), Kind: e.kind, Group: &Group{ID: groupID(root, e.group)}}
					groups[e.group] = g
				}
				g.Group.Count++
				if g.Kind != e.kind {
					g.Kind = KindChanged
				}
				continue
			}
			if file, ok := s.fileOf(f, rel, e); ok {
				out = append(out, file)
			}
		}
		for _, g := range groups {
			out = append(out, *g)
		}
	}
	slices.SortStableFunc(out, func(a, b File) int {
		if a.Path.Root != b.Path.Root {
			return cmpStr(a.Path.Root, b.Path.Root)
		}
		return cmpStr(a.Path.Rel, b.Path.Rel)
	})
	s.files = out
	return out
}

// fileOf computes one reviewed file. s.mu is held.
func (s *Set) fileOf(f *folder, rel string, e pendingEntry) (File, bool) {
	base, err := f.readBase(rel)
	if err != nil {
		s.store.log.Warn("pending file without its base", "file", rel, "error", err)
	}
	var pending []byte
	if e.kind != KindDeleted {
		var ok bool
		if pending, _, ok = f.readUpper(rel); !ok {
			return File{}, false
		}
		if rec := f.files[rel]; rec != nil && rec.Existed && string(pending) == string(base) {
			return File{}, false
		}
	}
	kind := e.kind
	if rec := f.files[rel]; kind == KindChanged && rec != nil && !rec.Existed {
		kind = KindCreated
	}
	hs := hunksOf(rel, kind, base, pending, s.conflicts)
	if len(hs) == 0 {
		return File{}, false
	}
	return File{Path: pathOf(f.root, rel), Kind: kind, Hunks: hs}, true
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
