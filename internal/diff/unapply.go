package diff

// Unapply returns the base text that edits (sorted, against that base)
// turned into after, given the text each edit replaced (olds[i] for
// edits[i]): the inverse of Apply. It is how a reviewer places hunks
// when it holds the new text and the hunks but not the old text. ok is
// false when the edits do not fit after.
func Unapply(after []byte, edits []Edit, olds []string) (base []byte, ok bool) {
	if len(olds) != len(edits) {
		return nil, false
	}
	size := len(after)
	for i, e := range edits {
		size += len(olds[i]) - len(e.NewText)
	}
	if size < 0 {
		return nil, false
	}
	base = make([]byte, 0, size)
	pos, prev := 0, 0 // in after, in base
	for i, e := range edits {
		gap := e.Start - prev
		if gap < 0 || e.End-e.Start != len(olds[i]) || pos+gap+len(e.NewText) > len(after) ||
			string(after[pos+gap:pos+gap+len(e.NewText)]) != e.NewText {
			return nil, false
		}
		base = append(base, after[pos:pos+gap]...)
		base = append(base, olds[i]...)
		pos += gap + len(e.NewText)
		prev = e.End
	}
	return append(base, after[pos:]...), true
}
