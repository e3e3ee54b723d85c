package diff

// Edit replaces the bytes [Start, End) of a text with NewText. A list
// of edits is sorted and non-overlapping, and applies to one base text.
type Edit struct {
	Start, End int
	NewText    string
}
