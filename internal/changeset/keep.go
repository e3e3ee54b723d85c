package changeset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// KeepResult is what a keep did: the hunks (and groups) that landed, and
// those left pending with the reason.
type KeepResult struct {
	Kept []string
	Left []Left
}

// Left is a hunk a keep left pending, and why.
type Left struct {
	Hunk, Reason string
}

// keepPlan is one file's part of a keep.
type keepPlan struct {
	file    File
	base    []byte
	pending []byte // the layer's content the hunks were taken from
	chosen  []int  // indices of file.Hunks that go into change
	change  tools.Change
	noop    bool // the user's text already is the result: nothing to apply
}

// Keep applies the chosen hunks to the user's files through ws (the
// front end's Workspace: the disk, or the editor with an applyEdit that
// needs no confirmation, the user having chosen). Each hunk is merged
// three-way over the user's current text: a hunk that the user's typing
// touches, in a file the user deleted or renamed, or over a file someone
// else created, stays pending with the reason (Left), and the user's
// text stays. Everything else goes in ONE tools.ApplyAll: it all lands,
// or nothing does and the error says why. Then each file's base moves
// on (a file with nothing left leaves the set), the ledger in ctx
// (filestate.NewLedgerContext), if any, records what was kept so that
// the run can be undone, and the agent's news says what was kept.
//
// A group of ignored outputs is written to the disk directly, after
// the reviewed files (no editor has them open).
func (s *Set) Keep(ctx context.Context, sel Selection, ws tools.Workspace) (KeepResult, error) {
	lock, err := s.lockOps(ctx, nil)
	if err != nil {
		return KeepResult{}, err
	}
	defer lock.unlock()
	files := s.Files()
	var res KeepResult
	for _, id := range sel.unknown(files) {
		res.Left = append(res.Left, Left{Hunk: id, Reason: "no such pending hunk: it was kept or discarded already, or the run changed it since"})
	}
	var plans []keepPlan
	var groups, wholes []File
	for _, f := range files {
		if f.KeepRefused != "" {
			res.Left = append(res.Left, refused(f, sel)...)
			continue
		}
		if f.Whole != nil {
			if len(sel.chosen(f)) > 0 {
				wholes = append(wholes, f)
			}
			continue
		}
		if f.Group != nil {
			if sel.fileChosen(f) {
				groups = append(groups, f)
			}
			continue
		}
		idx := sel.chosen(f)
		if len(idx) == 0 {
			continue
		}
		p, left, err := s.planKeep(ctx, f, idx, ws)
		if err != nil {
			return res, err
		}
		res.Left = append(res.Left, left...)
		if len(p.chosen) > 0 {
			plans = append(plans, p)
		}
	}
	var changes []tools.Change
	for _, p := range plans {
		if !p.noop {
			changes = append(changes, p.change)
		}
	}
	docs, err := tools.ApplyAll(ctx, ws, changes)
	if err != nil && len(docs) == 0 {
		s.setConflicts(res.Left)
		return res, fmt.Errorf("nothing was kept: %w", err)
	}
	// A Workspace without ApplyAll may have applied the first few: those
	// are kept and said so; the rest stay pending with the error.
	applied := map[int]tools.Document{}
	k := 0
	for i, p := range plans {
		if p.noop {
			continue
		}
		if k < len(docs) {
			applied[i] = docs[k]
		}
		k++
	}
	var news []string
	s.mu.Lock()
	for i, p := range plans {
		doc, ok := applied[i]
		if !p.noop && !ok {
			for _, h := range p.chosen {
				res.Left = append(res.Left, Left{Hunk: p.file.Hunks[h].ID, Reason: "not applied: " + err.Error()})
			}
			continue
		}
		kept := p.chosen
		if len(doc.Rejected) > 0 {
			kept = nil
			for j, h := range p.chosen {
				if slices.Contains(doc.Rejected, j) {
					res.Left = append(res.Left, Left{Hunk: p.file.Hunks[h].ID, Reason: "the editor refused it"})
				} else {
					kept = append(kept, h)
				}
			}
		}
		if len(kept) == 0 {
			continue
		}
		s.moveBase(p, kept)
		if l := filestate.LedgerFromContext(ctx); l != nil && !p.noop {
			recordKept(l, p, doc.Content)
		}
		for _, h := range kept {
			res.Kept = append(res.Kept, p.file.Hunks[h].ID)
			news = append(news, "the user kept "+describeHunk(p.file, h, p.base))
		}
	}
	s.files = nil
	s.mu.Unlock()
	for _, w := range wholes {
		if why, err := s.keepWhole(ctx, w, ws); err != nil || why != "" {
			if err != nil {
				why = err.Error()
			}
			res.Left = append(res.Left, Left{Hunk: w.Hunks[0].ID, Reason: why})
			continue
		}
		res.Kept = append(res.Kept, w.Hunks[0].ID)
		news = append(news, "the user kept "+w.Hunks[0].Label)
	}
	for _, g := range groups {
		if err := s.keepGroup(ctx, g); err != nil {
			res.Left = append(res.Left, Left{Hunk: g.Group.ID, Reason: err.Error()})
			continue
		}
		res.Kept = append(res.Kept, g.Group.ID)
		news = append(news, fmt.Sprintf("the user kept %s/ (%d files)", g.Path.Rel, g.Group.Count))
	}
	s.setConflicts(res.Left)
	s.addNews(news)
	s.tidy()
	s.changed()
	return res, nil
}

// planKeep merges f's chosen hunks over the user's text as ws has it.
func (s *Set) planKeep(ctx context.Context, f File, idx []int, ws tools.Workspace) (keepPlan, []Left, error) {
	s.mu.Lock()
	fo := s.folders[f.Path.Root]
	base, err := fo.baseText(ctx, f.Path.Rel)
	var pending []byte
	if f.Kind != KindDeleted {
		pending, _, _ = fo.upperText(ctx, f.Path.Rel)
	}
	var moved, gone bool
	if err == nil {
		moved, gone, err = fo.userChanged(ctx, fo.files[f.Path.Rel], f.Path.Rel)
	}
	s.mu.Unlock()
	if err != nil {
		return keepPlan{}, nil, err
	}
	p := keepPlan{file: f, base: base, pending: pending}
	leave := func(why string) (keepPlan, []Left, error) {
		var left []Left
		for _, h := range idx {
			left = append(left, Left{Hunk: f.Hunks[h].ID, Reason: why})
		}
		return p, left, nil
	}
	cur, err := ws.Read(ctx, f.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return keepPlan{}, nil, fmt.Errorf("read %s: %w", f.Path.Rel, err)
	}
	if moved && !gone {
		// The base is the folder's entry, which the user changed since
		// the run found it: comparing with it would compare the user's
		// file with itself.
		if f.Kind == KindDeleted {
			return leave(fmt.Sprintf("%s changed since the run deleted it; deleting it now would lose those changes, so it was left", f.Path.Rel))
		}
		return leave(fmt.Sprintf("%s changed since the run changed it; keeping the run's would replace those changes, so it was left", f.Path.Rel))
	}
	switch f.Kind {
	case KindCreated:
		if exists && !bytes.Equal(cur.Content, pending) {
			return leave(fmt.Sprintf("a file %s was created meanwhile; keeping the run's would replace it, so it was left as it is", f.Path.Rel))
		}
		p.chosen, p.noop = idx, exists
		p.change = tools.Change{Path: f.Path, Create: true, Edits: []tools.TextEdit{{NewText: string(pending)}}, After: pending, Label: "keep " + f.Path.Rel}
		return p, nil, nil
	case KindDeleted:
		if exists && !bytes.Equal(cur.Content, base) {
			return leave(fmt.Sprintf("%s changed since the run deleted it; deleting it now would lose those changes, so it was left", f.Path.Rel))
		}
		p.chosen, p.noop = idx, !exists
		p.change = tools.Change{Path: f.Path, Base: cur, Delete: true, Label: "keep the deletion of " + f.Path.Rel}
		return p, nil, nil
	}
	if !exists {
		return leave(fmt.Sprintf("%s was deleted or renamed while the change was pending, so there is nothing to apply it to; discard it, or put the file back and keep again", f.Path.Rel))
	}
	var left []Left
	var edits []tools.TextEdit
	same := bytes.Equal(cur.Content, base)
	for _, h := range idx {
		e := f.Hunks[h].Edit
		if !same {
			moved, _, ok := diff.RebaseEdits(base, []diff.Edit{e}, cur.Content)
			if !ok || len(f.Hunks) == 1 && isBinary(base) {
				first, last := diff.HunkLines(base, e)
				left = append(left, Left{Hunk: f.Hunks[h].ID, Reason: fmt.Sprintf("%s: the user changed lines at or next to %s meanwhile; their text was kept and this hunk stays pending", f.Path.Rel, diff.LineSpan(first, last))})
				continue
			}
			e = moved[0]
		}
		edits = append(edits, e)
		p.chosen = append(p.chosen, h)
	}
	if len(edits) == 0 {
		return p, left, nil
	}
	after, err := diff.Apply(cur.Content, edits)
	if err != nil {
		return keepPlan{}, nil, fmt.Errorf("merge %s: %w", f.Path.Rel, err)
	}
	p.change = tools.Change{Path: f.Path, Base: cur, Edits: edits, After: after, Label: "keep " + f.Path.Rel}
	return p, left, nil
}

// moveBase makes the kept hunks part of the file's base: what is left
// pending is the rest. A file with nothing left leaves the set. s.mu is
// held.
func (s *Set) moveBase(p keepPlan, kept []int) {
	f := s.folders[p.file.Path.Root]
	rel := p.file.Path.Rel
	now, _, _ := f.upperText(context.Background(), rel)
	written := !bytes.Equal(now, p.pending) // the run wrote the file again meanwhile
	if !written && (p.file.Kind != KindChanged || len(kept) == len(p.file.Hunks)) {
		s.revertLayer(p.file.Path)
		return
	}
	if p.file.Kind != KindChanged {
		// Kept whole, then written again by the run: what it holds now
		// is pending over the kept file.
		if rec := f.files[rel]; rec != nil {
			rec.Existed, rec.Lower = true, false
		}
		if err := f.writeBase(rel, p.pending); err != nil {
			s.store.log.Warn("move the base of a kept file", "file", rel, "error", err)
		}
		if p.file.Kind == KindCreated {
			s.pending[p.file.Path.Root][rel] = pendingEntry{kind: KindChanged}
		}
		_ = f.save(s.manifest())
		return
	}
	edits := make([]diff.Edit, len(kept))
	for i, h := range kept {
		edits[i] = p.file.Hunks[h].Edit
	}
	nb, err := diff.Apply(p.base, edits)
	if err == nil {
		err = f.writeBase(rel, nb)
	}
	if err != nil {
		s.store.log.Warn("move the base of a kept file", "file", rel, "error", err)
		return
	}
	if rec := f.files[rel]; rec != nil {
		rec.Lower = false
	}
	if err := f.save(s.manifest()); err != nil {
		s.store.log.Warn("store the run's change set", "run", s.id, "error", err)
	}
}

// setConflicts remembers why hunks were left, for Files to show.
func (s *Set) setConflicts(left []Left) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range left {
		s.conflicts[l.Hunk] = l.Reason
	}
	s.files = nil
}

// describeHunk names hunk h of f for the agent: "hunk 2 of calc.go
// (lines 40–44: "total := 0" → "sum := 0")".
func describeHunk(f File, h int, base []byte) string {
	switch f.Kind {
	case KindCreated:
		return "the new file " + f.Path.Rel
	case KindDeleted:
		return "the deletion of " + f.Path.Rel
	}
	return fmt.Sprintf("hunk %d of %s (%s)", h+1, f.Path.Rel, diff.HunkSummary(base, f.Hunks[h].Edit))
}
