package changeset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// keepGroup writes a group of ignored outputs to the disk, and drops it
// from the layer. The regular files a Workspace can hold go in at once
// (tools.DiskWorkspace.ApplyAll: all or nothing); then the links are
// made (never followed), the files too big for a Workspace streamed,
// and the entries of the user's that are not regular files removed
// (the entry itself, not what a link points to). A FIFO, a socket or a
// device is never made: it stays in the layer, and the error names it.
func (s *Set) keepGroup(ctx context.Context, g File) error {
	root := g.Path.Root
	s.mu.Lock()
	f := s.folders[root]
	var cs []tools.Change
	var rels, left, theirs []string
	type step struct {
		rel string
		fn  func() error
	}
	var after []step // the rest, once ApplyAll has landed
	for _, rel := range sortedRels(s.pending[root]) {
		e := s.pending[root][rel]
		if e.group != g.Path.Rel {
			continue
		}
		p := pathOf(root, rel)
		cur, fi, err := safefile.ReadBeneath(ctx, root, rel, safefile.MaxFileSize)
		exists := err == nil
		plain := err == nil || errors.Is(err, fs.ErrNotExist) // a regular file or nothing
		if !plain && fi == nil && !errors.Is(err, safefile.ErrNotRegular) && !errors.Is(err, safefile.ErrTooLarge) {
			s.mu.Unlock()
			return fmt.Errorf("read %s: %w", rel, err)
		}
		// Each file has a base of its own: what the folder held when the
		// command ran (lower_base.go). One the user changed since, or
		// made where the command created one, stays pending.
		rec := f.files[rel]
		moved, gone, err := f.userChanged(ctx, rec, rel)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		created := rec != nil && !rec.Existed && (exists || !plain)
		if created || moved && !(gone && e.kind == KindDeleted) {
			theirs = append(theirs, rel)
			continue
		}
		pend := side{}
		if e.kind != KindDeleted {
			if pend, err = f.pendingSide(ctx, rel); err != nil {
				s.mu.Unlock()
				return err
			}
		}
		rels = append(rels, rel)
		switch {
		case e.kind == KindDeleted && !exists && plain:
			// Gone already.
		case e.kind == KindDeleted && !plain:
			after = append(after, step{rel, func() error { return safefile.RemoveBeneath(root, rel) }})
		case e.kind == KindDeleted:
			cs = append(cs, tools.Change{Path: p, Base: tools.Document{Content: cur}, Delete: true, Label: "keep " + rel})
		case pend.form == FormLink:
			target := pend.target
			after = append(after, step{rel, func() error { return safefile.SymlinkBeneath(root, rel, target) }})
		case pend.form == FormBig || pend.form.regular() && !plain:
			upper := f.layer.Upper
			after = append(after, step{rel, func() error {
				r, fi, err := safefile.OpenRegularBeneath(upper, rel)
				if err != nil {
					return err
				}
				defer r.Close()
				return safefile.ReplaceBeneath(ctx, root, rel, r, fi.Mode().Perm())
			}})
		case pend.form.regular():
			cs = append(cs, tools.Change{Path: p, Base: tools.Document{Content: cur}, Create: !exists, After: pend.data,
				Edits: []tools.TextEdit{{Start: 0, End: len(cur), NewText: string(pend.data)}}, Label: "keep " + rel})
		default:
			// Not something cb-ls makes in the user's folder.
			rels = rels[:len(rels)-1]
			left = append(left, fmt.Sprintf("%s (%s)", rel, formPhrase(pend.form, 0, "")))
		}
	}
	s.mu.Unlock()
	if _, err := (tools.DiskWorkspace{}).ApplyAll(ctx, cs); err != nil {
		return fmt.Errorf("%s/ was not kept: %w", g.Path.Rel, err)
	}
	var errs []error
	failed := map[string]bool{}
	for _, st := range after {
		if err := st.fn(); err != nil {
			errs = append(errs, err)
			failed[st.rel] = true // stays pending
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rel := range rels {
		if failed[rel] {
			continue
		}
		s.revertLayer(pathOf(root, rel))
	}
	s.files = nil
	if err := s.saveAll(); err != nil {
		errs = append(errs, err)
	}
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("not kept, left pending: %s; only regular files and links are kept", strings.Join(left, ", ")))
	}
	if len(theirs) > 0 {
		errs = append(errs, fmt.Errorf("not kept, left pending: %s changed since the command ran; keeping the command's version would replace those changes", strings.Join(theirs, ", ")))
	}
	return errors.Join(errs...)
}
