package changeset

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
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
		done := f.listing()
		idx := s.pending[root]
		groups := map[string]*File{}
		for _, rel := range sortedRels(idx) {
			e := idx[rel]
			if e.group != "" {
				g, ok := groups[e.group]
				if !ok {
					g = &File{Path: pathOf(root, e.group), Kind: e.kind, Group: &Group{ID: groupID(root, e.group)},
						RunsLater: runsLater(e.group), KeepRefused: s.protected(e.group, pathOf(root, e.group).Abs)}
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
		done()
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

// fileOf computes one reviewed file, reading both sides safely (no
// link followed, nothing but regular files opened, at most
// MaxDiffSize read). s.mu is held.
func (s *Set) fileOf(f *folder, rel string, e pendingEntry) (File, bool) {
	ctx := context.Background()
	base, err := f.baseSide(ctx, rel)
	if err != nil {
		s.store.log.Warn("pending file without its base", "file", rel, "error", err)
	}
	var pending side
	if e.kind != KindDeleted {
		if pending, err = f.pendingSide(ctx, rel); err != nil || pending.form == FormNone {
			return File{}, false
		}
		if rec := f.files[rel]; rec != nil && rec.Existed && base.form != FormNone {
			if eq, err := same(ctx, base, pending); err == nil && eq {
				return File{}, false
			}
		}
	}
	kind := e.kind
	if rec := f.files[rel]; kind == KindChanged && rec != nil && !rec.Existed {
		kind = KindCreated
	}
	file := File{Path: pathOf(f.root, rel), Kind: kind, RunsLater: runsLater(rel), KeepRefused: s.protected(rel, pathOf(f.root, rel).Abs)}
	if whole(base, pending) {
		w := &Whole{Form: pending.form, BaseForm: base.form, Size: pending.size, BaseSize: base.size, Target: pending.target, BaseTarget: base.target}
		if file.KeepRefused == "" {
			file.KeepRefused = w.unkeepable()
		}
		file.Whole = w
		file.Hunks = []Hunk{wholeHunk(rel, w, s.conflicts)}
		return file, true
	}
	file.Hunks = hunksOf(rel, kind, base.data, pending.data, s.conflicts)
	if len(file.Hunks) == 0 {
		return File{}, false
	}
	return file, true
}

// protected says why keep never writes rel, whose absolute path is abs:
// beneath .git or .catbuddy at any depth, or inside cb-ls's own state
// (the directory holding the run directories, wherever the store puts
// it). s.mu is held.
func (s *Set) protected(rel, abs string) string {
	if why := protectedReason(rel); why != "" {
		return why
	}
	if state := s.store.base; state != "" && (abs == state || strings.HasPrefix(abs, state+string(filepath.Separator))) {
		return "not kept: it is inside cb-ls's own state directory; discard it"
	}
	return ""
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
