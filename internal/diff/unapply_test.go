package diff

import "testing"

func TestUnapplyInvertsApply(t *testing.T) {
	for _, tc := range []struct{ base, after string }{
		{"a\nb\nc\nd\n", "a\nB\nc\nD\nE\n"},
		{"", "new file\n"},
		{"gone\n", ""},
		{"same\n", "same\n"},
		{"x1\nx2\nx3\n", "x2\n"},
	} {
		edits := LineEdits([]byte(tc.base), []byte(tc.after))
		olds := make([]string, len(edits))
		for i, e := range edits {
			olds[i] = tc.base[e.Start:e.End]
		}
		got, ok := Unapply([]byte(tc.after), edits, olds)
		if !ok || string(got) != tc.base {
			t.Errorf("Unapply(%q) = %q, %v; want %q", tc.after, got, ok, tc.base)
		}
	}
	if _, ok := Unapply([]byte("short"), []Edit{{Start: 0, End: 1, NewText: "much longer than after"}}, []string{"x"}); ok {
		t.Error("edits that do not fit after were accepted")
	}
}
