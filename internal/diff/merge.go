package diff

import (
	"bytes"

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

// At names the edit a merge failed at: its index among the edits and
// its 1-based line in their base.
type At struct{ Hunk, Line int }

// RebaseEdits moves edits (sorted, against base) over the line changes
// from base to cur. ok is false, with the first edit in the way, when a
// change touches an edit's lines.
func RebaseEdits(base []byte, edits []Edit, cur []byte) ([]Edit, At, bool) {
	theirs := udiff.Lines(string(base), string(cur))
	out := make([]Edit, len(edits))
	k, shift := 0, 0 // theirs[:k] lie before the current edit; shift is their growth
	for i, e := range edits {
		lo, hi := changedLines(base, e)
		for k < len(theirs) && theirs[k].End < lo {
			shift += len(theirs[k].New) - (theirs[k].End - theirs[k].Start)
			k++
		}
		if k < len(theirs) && theirs[k].Start <= hi {
			return nil, At{i, bytes.Count(base[:e.Start], []byte("\n")) + 1}, false
		}
		out[i] = Edit{Start: e.Start + shift, End: e.End + shift, NewText: e.NewText}
	}
	return out, At{}, true
}

// changedLines returns the whole lines of base that e changes, as byte
// offsets [lo, hi]: from the start of its first line to the end of its
// last (an edit ending at a line start ends there; an insertion at a
// line start covers no line). A change of the other side within or
// touching the span conflicts with e.
func changedLines(base []byte, e Edit) (lo, hi int) {
	lo = startOfLine(base, e.Start)
	switch {
	case e.End == e.Start && e.Start == lo:
		return lo, lo
	case e.End > e.Start && (e.End == len(base) || base[e.End-1] == '\n'):
		return lo, e.End
	}
	return lo, endOfLine(base, e.End)
}

// Merge3 merges, line by line, the changes from base to ours with those
// from base to theirs, keeping both (ours is the text as it now is).
func Merge3(base, ours, theirs []byte) ([]byte, bool) {
	edits := LineEdits(base, theirs)
	moved, _, ok := RebaseEdits(base, edits, ours)
	if !ok {
		return nil, false
	}
	out, err := Apply(ours, moved)
	return out, err == nil
}
