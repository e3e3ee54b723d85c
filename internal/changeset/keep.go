package changeset

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// KeepResult is what a keep did: the hunks (and groups) that landed,
// those left pending with the reason, and, of the kept, the conflicted
// hunks resolved and how (Selection.Conflicts).
type KeepResult struct {
	Kept     []string
	Left     []Left
	Resolved []Resolved
}

// Left is a hunk a keep left pending, and why.
type Left struct {
	Hunk, Reason string
}

// Keep applies the chosen hunks to the user's files through ws (the
// front end's Workspace: the disk, or the editor with an applyEdit that
// needs no confirmation, the user having chosen). Each hunk is merged
// three-way over the user's current text: a hunk that the user's typing
// touches, in a file the user deleted or renamed, or over a file someone
// else created, is a conflict: resolved as sel.Conflicts says
// (resolve.go), or left pending with the reason (Left), the user's
// text staying. Everything else goes in ONE tools.ApplyAll: it all
// lands, or nothing does and the error says why. Then each file's base
// moves on (a file with nothing left leaves the set), the ledger in ctx
// (filestate.NewLedgerContext), if any, records what was kept so that
// the run can be undone, and the agent's news says what was kept, how
// each conflict was resolved, and which are still pending and why.
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
	var news []string
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
		p, left, err := s.planKeep(ctx, f, idx, ws, sel.Conflicts)
		if err != nil {
			return res, err
		}
		res.Left = append(res.Left, left...)
		news = append(news, p.news...)
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
		if refusedHunks := p.rejected(doc.Rejected); len(refusedHunks) > 0 {
			kept = nil
			for _, h := range p.chosen {
				if slices.Contains(refusedHunks, h) {
					res.Left = append(res.Left, Left{Hunk: p.file.Hunks[h].ID, Reason: "the editor refused it"})
				} else {
					kept = append(kept, h)
				}
			}
		}
		if len(kept) == 0 {
			continue
		}
		if p.drop {
			if err := s.dropHunks(p.file, kept, p.base); err != nil {
				s.store.log.Warn("drop a pending file the user kept their own over", "file", p.file.Path.Rel, "error", err)
			}
			_ = s.saveAll()
		} else {
			s.moveBase(p, kept)
		}
		if l := filestate.LedgerFromContext(ctx); l != nil && !p.noop {
			recordKept(l, p, doc.Content)
		}
		for _, h := range kept {
			id := p.file.Hunks[h].ID
			res.Kept = append(res.Kept, id)
			how := p.how[h]
			if how != ResolveNone {
				res.Resolved = append(res.Resolved, Resolved{Hunk: id, How: how})
				delete(s.conflicts, id)
			}
			news = append(news, resolvedNews(how, describeHunk(p.file, h, p.base)))
		}
	}
	s.files = nil
	s.mu.Unlock()
	for _, w := range wholes {
		id := w.Hunks[0].ID
		how, why, err := s.resolveWhole(ctx, w, ws, sel.Conflicts)
		if err != nil || why != "" {
			if err != nil {
				why = err.Error()
			}
			res.Left = append(res.Left, Left{Hunk: id, Reason: why})
			continue
		}
		res.Kept = append(res.Kept, id)
		if how != ResolveNone {
			res.Resolved = append(res.Resolved, Resolved{Hunk: id, How: how})
		}
		news = append(news, resolvedNews(how, w.Hunks[0].Label))
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

// rejected returns the hunks of p that the edits the editor refused
// (indices into p.change.Edits) would have landed.
func (p keepPlan) rejected(edits []int) []int {
	var out []int
	for _, j := range edits {
		switch {
		case p.owners == nil && j < len(p.chosen):
			out = append(out, p.chosen[j])
		case j < len(p.owners):
			out = append(out, p.owners[j]...)
		}
	}
	return out
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
