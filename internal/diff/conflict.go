package diff

import "github.com/aymanbagabas/go-udiff"

// When a hunk of a run and the user's typing touch, RebaseEdits refuses
// to merge them. To resolve that conflict (keep both, keep the user's,
// take the run's, or write conflict markers, as git does), the two
// sides must be cut at the same place: the conflicting region.

// Region is one stretch of whole lines in two versions of a text: the
// bytes [BaseStart, BaseEnd) of the base became [CurStart, CurEnd) of
// the current text through the user's edits, and no edit of the user
// crosses its ends.
type Region struct {
	BaseStart, BaseEnd int
	CurStart, CurEnd   int
}

// ConflictRegion returns where hunk e (against base) conflicts with the
// user's edits from base to cur: the hunk's lines widened by every
// user edit that overlaps or touches them, under the adjacency rule of
// RebaseEdits (an edit on a neighbouring line touches), again and again
// until nothing more joins, and the same stretch in cur. The user's
// side of the conflict is cur[CurStart:CurEnd]; the run's is
// base[BaseStart:BaseEnd] with e applied. When no user edit touches e,
// the region is e's lines alone, shifted by the edits before it.
func ConflictRegion(base []byte, e Edit, cur []byte) Region {
	theirs := udiff.Lines(string(base), string(cur))
	lo, hi := changedLines(base, e)
	for grown := true; grown; {
		grown = false
		for _, t := range theirs {
			if t.End < lo || t.Start > hi {
				continue
			}
			if t.Start < lo {
				lo, grown = t.Start, true
			}
			if t.End > hi {
				hi, grown = t.End, true
			}
		}
	}
	r := Region{BaseStart: lo, BaseEnd: hi, CurStart: lo, CurEnd: hi}
	for _, t := range theirs {
		growth := len(t.New) - (t.End - t.Start)
		switch {
		case t.End < lo:
			r.CurStart += growth
			r.CurEnd += growth
		case t.Start <= hi:
			r.CurEnd += growth
		}
	}
	return r
}
