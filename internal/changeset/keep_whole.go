package changeset

import (
	"context"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// A whole-file item (see Whole) is kept by making the user's entry what
// the layer holds, directly on the disk and never through the editor
// (a binary file must land byte for byte, a big one streamed; one open
// in a buffer is left pending until the buffer is closed): a
// regular file is copied from the layer and renamed into place, a link
// is made anew (its target written, never followed), a deletion
// unlinks the entry itself. Nothing else is made: a FIFO, a socket or a
// device is refused (File.KeepRefused). Whole items are not recorded in
// the run's undo ledger, which holds texts.

// refused is the Left of every part of f that sel chooses: f is never
// kept (File.KeepRefused).
func refused(f File, sel Selection) []Left {
	if f.Group != nil {
		if sel.fileChosen(f) {
			return []Left{{Hunk: f.Group.ID, Reason: f.KeepRefused}}
		}
		return nil
	}
	var out []Left
	for _, i := range sel.chosen(f) {
		out = append(out, Left{Hunk: f.Hunks[i].ID, Reason: f.KeepRefused})
	}
	return out
}

// resolveWhole keeps the whole-file item file, resolving a conflict
// with the user's entry as how says: theirs drops the run's item, run
// writes it over the user's, both and markers leave it (they apply to
// text). It returns how a conflict was resolved, or why the item was
// left.
func (s *Set) resolveWhole(ctx context.Context, file File, ws tools.Workspace, how Resolution) (Resolution, string, error) {
	why, conflict, err := s.keepWhole(ctx, file, ws, false)
	if err != nil || !conflict || how == ResolveNone {
		return ResolveNone, why, err
	}
	switch how {
	case ResolveTheirs:
		s.mu.Lock()
		defer s.mu.Unlock()
		s.revertLayer(file.Path)
		s.files = nil
		if err := s.saveAll(); err != nil {
			s.store.log.Warn("store the run's change set", "run", s.id, "error", err)
		}
		return how, "", nil
	case ResolveRun:
		why, _, err := s.keepWhole(ctx, file, ws, true)
		return how, why, err
	}
	return ResolveNone, onlyWhole(how, why, "write the run's whole file"), nil
}

// keepWhole keeps the whole-file item file: why it was left instead
// (conflict when that is the user's entry having changed since the run
// found it), or an error. The user's entry must still be what the run
// found (the base), unless force, and the layer's what the listing
// showed.
func (s *Set) keepWhole(ctx context.Context, file File, ws tools.Workspace, force bool) (why string, conflict bool, err error) {
	root, rel := file.Path.Root, file.Path.Rel
	if bufferOpen(ctx, ws, file.Path) {
		// Written on the disk under an open buffer, it would be the
		// editor's to reload or to overwrite with the buffer's text; sent
		// to the buffer as a text edit, its bytes would not survive.
		return fmt.Sprintf("%s is open in a buffer; it is kept whole on the disk, never as a text edit, so close the buffer to keep it", rel), false, nil
	}
	s.mu.Lock()
	fo := s.folders[root]
	if fo == nil {
		s.mu.Unlock()
		return "no such pending change: it was kept or discarded already", false, nil
	}
	base, err := fo.baseSide(ctx, rel)
	var pending side
	if err == nil && file.Whole.Form != FormNone {
		pending, err = fo.pendingSide(ctx, rel)
	}
	var moved, gone bool
	if err == nil {
		moved, gone, err = fo.userChanged(ctx, fo.files[rel], rel)
	}
	upper := fo.layer.Upper
	s.mu.Unlock()
	if err != nil {
		return "", false, err
	}
	switch {
	case force, !moved, gone && file.Whole.Form == FormNone:
	case gone:
		return fmt.Sprintf("%s was deleted or renamed while the change was pending, so there is nothing to apply it to; discard it, or put the file back and keep again", rel), true, nil
	default:
		return fmt.Sprintf("%s changed since the run made this change; keeping it would replace that, so it was left", rel), true, nil
	}
	w := file.Whole
	if pending.form != w.Form || pending.target != w.Target || pending.form.regular() && pending.size != w.Size {
		return fmt.Sprintf("%s: the run changed it since it was listed; look at it again", rel), false, nil
	}
	cur, err := readSide(ctx, root, rel)
	if err != nil {
		return "", false, fmt.Errorf("look at %s: %w", rel, err)
	}
	if eq, err := same(ctx, base, cur); err != nil {
		return "", false, fmt.Errorf("compare %s: %w", rel, err)
	} else if !eq && !force {
		return fmt.Sprintf("%s changed since the run made this change; keeping it would replace that, so it was left", rel), true, nil
	}
	switch {
	case w.Form == FormNone:
		err = safefile.RemoveBeneath(root, rel)
	case w.Form == FormLink:
		err = safefile.SymlinkBeneath(root, rel, w.Target)
	case w.Form.regular():
		f, fi, oerr := safefile.OpenRegularBeneath(upper, rel)
		if oerr != nil {
			return "", false, fmt.Errorf("%s in the run's layer: %w", rel, oerr)
		}
		err = safefile.ReplaceBeneath(ctx, root, rel, f, fi.Mode().Perm())
		f.Close()
	default:
		return w.unkeepable(), false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s was not kept: %w", rel, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revertLayer(file.Path)
	s.files = nil
	if err := s.saveAll(); err != nil {
		s.store.log.Warn("store the run's change set", "run", s.id, "error", err)
	}
	return "", false, nil
}

// bufferOpen reports whether the front end has p open in a buffer.
func bufferOpen(ctx context.Context, ws tools.Workspace, p guard.Path) bool {
	if bl, ok := ws.(tools.BufferLister); ok {
		for _, o := range bl.OpenBuffers(ctx) {
			if o.Abs == p.Abs {
				return true
			}
		}
		return false
	}
	doc, err := ws.Read(ctx, p)
	return err == nil && doc.Open
}
