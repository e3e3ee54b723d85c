package tools

import "testing"

// TestChangedLinesOncePerLine: two edits of one line (a rename of two
// words on it) name the line once; separate lines and spans stay.
func TestChangedLinesOncePerLine(t *testing.T) {
	// "a Close b Close\nc\nd\n", both Closes renamed and d made D.
	after := "a Finalize b Finalize\nc\nD\n"
	c := Change{After: []byte(after), Edits: []TextEdit{
		{Start: 2, End: 7, NewText: "Finalize"},
		{Start: 10, End: 15, NewText: "Finalize"},
		{Start: 18, End: 19, NewText: "D"},
	}}
	if got := changedLines(c); got != "lines 1, 3" {
		t.Errorf("changedLines = %q, want %q", got, "lines 1, 3")
	}
}
