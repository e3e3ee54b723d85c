package tools

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/aymanbagabas/go-udiff"
)

// The one three-way merge of cb-ls. An agent edit is made against one
// text (the base); by the time the user has reviewed it the document may
// hold more (the user typed meanwhile). Both are kept when they do not
// touch: each of the agent's hunks moves to where its lines now are and
// is applied there, like a clean git merge. When a hunk of the agent and
// a change of the user overlap or touch (adjacent lines too, as in git),
// nothing is merged: the user's text stays as it is and the model is
// told where. The undo of a run uses the same merge the other way round
// (the run's changes are the hunks, the later edits the user's).

// ErrConflict is wrapped by Rebase's error when the other changes touch
// the change's own lines.
var ErrConflict = errors.New("the changes overlap")

// ConflictError names where a merge failed.
type ConflictError struct {
	Path string // workspace-relative
	Hunk int    // index of the change's edit that the other changes touch
	Line int    // 1-based line of that edit in the change's base
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: the changes made to it meanwhile touch the lines this edit changes (line %d)", e.Path, e.Line)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Rebase returns c carried over to cur, the document as it now is after
// someone else changed c.Base: Base becomes cur, each edit moves to
// where its lines are in cur (the same edits, in the same order, so a
// per-hunk answer about the result is an answer about c's hunks), and
// After is cur with them applied. It fails with a *ConflictError when a
// change from c.Base to cur touches a line an edit of c changes, and
// refuses file creations and deletions, which have nothing to merge.
func Rebase(c Change, cur Document) (Change, error) {
	if c.Create || c.Delete {
		return Change{}, fmt.Errorf("%w: %s was created or deleted meanwhile", ErrConflict, c.Path.Rel)
	}
	edits, line, ok := rebaseEdits(c.Base.Content, c.Edits, cur.Content)
	if !ok {
		return Change{}, &ConflictError{Path: c.Path.Rel, Hunk: line.hunk, Line: line.line}
	}
	after, err := applyEdits(cur.Content, edits)
	if err != nil {
		return Change{}, fmt.Errorf("merge %s: %w", c.Path.Rel, err)
	}
	out := c
	out.Base, out.Edits, out.After = cur, edits, after
	return out, nil
}

// where is the edit a merge failed at.
type where struct{ hunk, line int }

// rebaseEdits moves edits (sorted, against base) over the line changes
// from base to cur. ok is false, with the first edit in the way, when a
// change touches an edit's lines.
func rebaseEdits(base []byte, edits []TextEdit, cur []byte) ([]TextEdit, where, bool) {
	theirs := udiff.Lines(string(base), string(cur))
	out := make([]TextEdit, len(edits))
	k, shift := 0, 0 // theirs[:k] lie before the current edit; shift is their growth
	for i, e := range edits {
		lo, hi := changedLines(base, e)
		for k < len(theirs) && theirs[k].End < lo {
			shift += len(theirs[k].New) - (theirs[k].End - theirs[k].Start)
			k++
		}
		if k < len(theirs) && theirs[k].Start <= hi {
			return nil, where{i, bytes.Count(base[:e.Start], []byte("\n")) + 1}, false
		}
		out[i] = TextEdit{Start: e.Start + shift, End: e.End + shift, NewText: e.NewText}
	}
	return out, where{}, true
}

// changedLines returns the whole lines of base that e changes, as byte
// offsets [lo, hi]: from the start of its first line to the end of its
// last (an edit ending at a line start ends there; an insertion at a
// line start covers no line). A change of the other side within or
// touching the span conflicts with e.
func changedLines(base []byte, e TextEdit) (lo, hi int) {
	lo = startOfLine(base, e.Start)
	switch {
	case e.End == e.Start && e.Start == lo:
		return lo, lo
	case e.End > e.Start && (e.End == len(base) || base[e.End-1] == '\n'):
		return lo, e.End
	}
	return lo, endOfLine(base, e.End)
}

// merge3 merges, line by line, the changes from base to ours with those
// from base to theirs, keeping both (ours is the text as it now is).
func merge3(base, ours, theirs []byte) ([]byte, bool) {
	edits := lineEdits(base, theirs)
	moved, _, ok := rebaseEdits(base, edits, ours)
	if !ok {
		return nil, false
	}
	out, err := applyEdits(ours, moved)
	return out, err == nil
}
