package diff

import "testing"

// TestIndentShiftsLines: the lines named are those of the file after
// the edit, past earlier edits that added lines.
func TestIndentShiftsLines(t *testing.T) {
	base := []byte("a:\n  b: 1\nc:\n  d: 2\n")
	edits := []Edit{
		{Start: 0, End: 0, NewText: "# one\n# two\n"},
		{Start: len("a:\n  b: 1\nc:\n"), End: len(base), NewText: "   d: 2\n"},
	}
	got := IndentShifts(base, edits)
	if len(got) != 1 || got[0] != (Shift{First: 6, Last: 6, From: 2, To: 3}) {
		t.Errorf("shifts %+v, want line 6, 2 → 3", got)
	}
}
