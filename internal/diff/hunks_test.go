package diff

import (
	"fmt"
	"slices"
	"testing"
)

func TestLandedHunks(t *testing.T) {
	base := []byte("one\ntwo\nthree\nfour\nfive\n")
	edits := []Edit{
		{Start: 0, End: 3, NewText: "ONE"},
		{Start: 8, End: 13, NewText: "THREE"},
		{Start: 19, End: 23, NewText: ""},
	}
	after, err := Apply(base, edits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		content string
		want    []bool
		exact   bool
	}{
		{"all", string(after), []bool{true, true, true}, true},
		{"none", string(base), []bool{false, false, false}, true},
		{"middle rejected", "ONE\ntwo\nthree\nfour\n\n", []bool{true, false, true}, true},
		{"only middle", "one\ntwo\nTHREE\nfour\nfive\n", []bool{false, true, false}, true},
		// The user also typed on line 2: no exact decomposition, the
		// context around each hunk decides; hunk 1's context holds the
		// typing, so it cannot be confirmed.
		{"amid typing", "ONE\ntwo typed\nthree\nfour\n\n", []bool{false, false, true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, exact := Landed(base, edits, after, []byte(tc.content))
			if !slices.Equal(got, tc.want) || exact != tc.exact {
				t.Errorf("Landed = %v (exact %v), want %v (exact %v)", got, exact, tc.want, tc.exact)
			}
		})
	}
}

func TestHunkLabel(t *testing.T) {
	base := []byte("a\nb\nc\nd\n")
	for _, tc := range []struct {
		e    Edit
		want string
	}{
		{Edit{Start: 2, End: 4, NewText: "B\n"}, "f.go: line 2"},
		{Edit{Start: 2, End: 6, NewText: "x\n"}, "f.go: lines 2–3"},
		{Edit{Start: 4, End: 4, NewText: "new\n"}, "f.go: line 3"},
		{Edit{Start: 2, End: 5, NewText: ""}, "f.go: lines 2–3"},
	} {
		if got := HunkLabel("f.go", base, tc.e); got != tc.want {
			t.Errorf("HunkLabel(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

func ExampleLineSpan() {
	fmt.Println(LineSpan(7, 7))
	fmt.Println(LineSpan(40, 44))
	// Output:
	// line 7
	// lines 40–44
}
