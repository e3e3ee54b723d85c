package lsp

import (
	"bytes"
	"context"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// onPendingChange is the Store's listener: a client that shows pending
// changes hears of every change of a set (an edit, a command, a keep or
// a discard) at once. It only sends a notification, so it never blocks
// the run that changed the set.
func (s *Server) onPendingChange(runID string) {
	if !s.experimental().PendingChanges {
		return
	}
	st := s.pendingStore()
	if st == nil {
		return
	}
	set, ok := st.Get(runID)
	if !ok {
		// Forgotten once nothing is left: the client clears what it shows.
		s.notify(s.baseCtx, MethodPendingChanges, &PendingChangesParams{RunID: runID, Files: []PendingFile{}})
		return
	}
	s.notifyPending(s.baseCtx, set)
}

// notifyPending sends set as it is now.
func (s *Server) notifyPending(ctx context.Context, set *changeset.Set) {
	s.notify(ctx, MethodPendingChanges, &PendingChangesParams{RunID: set.RunID(), Files: s.pendingFiles(ctx, set)})
}

// pendingFiles is the wire form of set's files, each hunk's range in the
// buffer (or on disk) as it is now.
func (s *Server) pendingFiles(ctx context.Context, set *changeset.Set) []PendingFile {
	files := set.Files()
	out := make([]PendingFile, 0, len(files))
	enc := s.PositionEncoding()
	view := set.Workspace(s.workspace)
	for _, f := range files {
		pf := PendingFile{URI: s.uriOf(f.Path.Abs), Path: f.Path.Rel, Kind: string(f.Kind), RunsLater: f.RunsLater, KeepRefused: f.KeepRefused}
		if f.Whole != nil {
			// Never read: it may be a link, a FIFO or gigabytes.
			pf.Whole = true
			for _, h := range f.Hunks {
				pf.Hunks = append(pf.Hunks, PendingHunk{ID: h.ID, Label: h.Label, Conflict: h.Conflict})
			}
			out = append(out, pf)
			continue
		}
		if f.Group != nil {
			pf.Group = &PendingGroup{ID: f.Group.ID, Count: f.Group.Count}
			out = append(out, pf)
			continue
		}
		cur := s.currentText(f)
		base, ok := baseText(ctx, view, f)
		if !ok {
			// The set changed between Files and the read: the next
			// notification, which that change sends, has it right.
			base = cur
		}
		ranges, conflicts := hunkRanges(base, f.Hunks, cur, enc)
		for i, h := range f.Hunks {
			ph := PendingHunk{ID: h.ID, Range: ranges[i], OldText: h.OldText, NewText: h.NewText, Label: h.Label, Conflict: h.Conflict}
			if ph.Conflict == "" && conflicts[i] {
				ph.Conflict = typedOverHunk
			}
			pf.Hunks = append(pf.Hunks, ph)
		}
		out = append(out, pf)
	}
	return out
}

// typedOverHunk is a hunk's conflict when the user's text now touches
// its lines: a plain keep then leaves it pending, and catbuddy.keep's
// conflicts argument resolves it.
const typedOverHunk = "the text here changed since the run made this change: keep both, keep yours, take the run's, or write conflict markers"

// baseText is the text f's hunks apply to, worked out from the run's
// pending text and the hunks.
func baseText(ctx context.Context, view tools.Workspace, f changeset.File) ([]byte, bool) {
	var after []byte
	if f.Kind != changeset.KindDeleted {
		doc, err := view.Read(ctx, f.Path)
		if err != nil {
			return nil, false
		}
		after = doc.Content
	}
	edits := make([]diff.Edit, len(f.Hunks))
	olds := make([]string, len(f.Hunks))
	for i, h := range f.Hunks {
		edits[i], olds[i] = h.Edit, h.OldText
	}
	return diff.Unapply(after, edits, olds)
}

// uriOf is the URI the client knows path by: its open buffer's own, or
// the file URI.
func (s *Server) uriOf(path string) uri.URI {
	if b, ok := s.overlay.ByPath(path); ok {
		return b.URI
	}
	return fileuri.FromPath(path)
}

// currentText is f's text as the user has it: the open buffer, else the
// disk ("" for a file that does not exist, as a created one).
func (s *Server) currentText(f changeset.File) []byte {
	if b, ok := s.overlay.ByPath(f.Path.Abs); ok {
		return b.Snapshot().Content
	}
	cur, err := os.ReadFile(f.Path.Abs)
	if err != nil {
		return nil
	}
	return cur
}

// hunkRanges places hunks (against base) in cur: where cur is still the
// base, directly; otherwise each hunk moves over the user's changes as
// a keep would merge it (diff.RebaseEdits). A hunk the user's changes
// touch cannot move: its range is the conflicting region in cur (the
// user's lines that a keep with conflicts resolves against the run's,
// diff.ConflictRegion), and it is marked in conflicts.
func hunkRanges(base []byte, hunks []changeset.Hunk, cur []byte, enc protocol.PositionEncodingKind) ([]protocol.Range, []bool) {
	ranges := make([]protocol.Range, len(hunks))
	conflicts := make([]bool, len(hunks))
	edits := make([]diff.Edit, len(hunks))
	for i, h := range hunks {
		edits[i] = h.Edit
	}
	if !bytes.Equal(base, cur) {
		if moved, _, ok := diff.RebaseEdits(base, edits, cur); ok {
			edits = moved
		} else {
			for i := range edits {
				one, _, ok := diff.RebaseEdits(base, edits[i:i+1], cur)
				if ok {
					edits[i] = one[0]
					continue
				}
				conflicts[i] = true
				r := diff.ConflictRegion(base, edits[i], cur)
				edits[i] = diff.Edit{Start: r.CurStart, End: r.CurEnd}
			}
		}
	}
	for i, e := range edits {
		ranges[i] = RangeOf(cur, min(e.Start, len(cur)), min(e.End, len(cur)), enc)
	}
	return ranges, conflicts
}
