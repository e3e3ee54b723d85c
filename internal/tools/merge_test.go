package tools

import (
	"errors"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// change builds a Change of base replacing each old (which must occur
// once) with its new text.
func change(t *testing.T, base string, repl ...string) Change {
	t.Helper()
	var edits []TextEdit
	for i := 0; i < len(repl); i += 2 {
		at := strings.Index(base, repl[i])
		if at < 0 || strings.Count(base, repl[i]) != 1 {
			t.Fatalf("%q must occur once in the base", repl[i])
		}
		edits = append(edits, TextEdit{Start: at, End: at + len(repl[i]), NewText: repl[i+1]})
	}
	after, err := diff.Apply([]byte(base), edits)
	if err != nil {
		t.Fatal(err)
	}
	return Change{Path: guard.Path{Rel: "a.txt"}, Base: Document{Content: []byte(base)}, Edits: edits, After: after}
}

func TestRebase(t *testing.T) {
	const base = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	for _, tc := range []struct {
		name      string
		repl      []string
		user      string
		want      string
		conflict  int // 1-based line of the conflict, 0 for none
		conflictH int
	}{
		{name: "typing below", repl: []string{"two", "TWO"}, user: "one\ntwo\nthree\nfour\nfive\nsix and more\nseven\n",
			want: "one\nTWO\nthree\nfour\nfive\nsix and more\nseven\n"},
		{name: "lines added above move the hunk", repl: []string{"six", "SIX"}, user: "zero\nhalf\none\ntwo\nthree\nfour\nfive\nsix\nseven\n",
			want: "zero\nhalf\none\ntwo\nthree\nfour\nfive\nSIX\nseven\n"},
		{name: "typing between two hunks", repl: []string{"one", "ONE", "seven", "SEVEN"}, user: "one\ntwo\nthree\nFOUR!\nfive\nsix\nseven\n",
			want: "ONE\ntwo\nthree\nFOUR!\nfive\nsix\nSEVEN\n"},
		{name: "lines deleted above", repl: []string{"five", "5"}, user: "one\nfour\nfive\nsix\nseven\n",
			want: "one\nfour\n5\nsix\nseven\n"},
		{name: "same line", repl: []string{"four", "4"}, user: "one\ntwo\nthree\nfour, said the user\nfive\nsix\nseven\n", conflict: 4},
		{name: "adjacent line", repl: []string{"four", "4"}, user: "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\n", conflict: 4},
		{name: "second hunk conflicts", repl: []string{"one", "1", "six\n", "6\n"}, user: "one\ntwo\nthree\nfour\nfive\nsix\nseven!\n", conflict: 6, conflictH: 1},
		{name: "insertion at a line start the user also typed at", repl: []string{"three\n", "three\nthree and a half\n"}, user: "one\ntwo\nthree\n3.7\nfour\nfive\nsix\nseven\n", conflict: 3},
		{name: "the user changed nothing", repl: []string{"two", "2"}, user: base, want: "one\n2\nthree\nfour\nfive\nsix\nseven\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := change(t, base, tc.repl...)
			got, err := Rebase(c, Document{Content: []byte(tc.user), Open: true})
			if tc.conflict > 0 {
				var ce *ConflictError
				if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Line != tc.conflict || ce.Hunk != tc.conflictH {
					t.Fatalf("Rebase = %q, %v; want a conflict at hunk %d, line %d", got.After, err, tc.conflictH, tc.conflict)
				}
				if !strings.Contains(err.Error(), "a.txt") {
					t.Errorf("conflict %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Rebase: %v", err)
			}
			if string(got.After) != tc.want {
				t.Errorf("After = %q, want %q", got.After, tc.want)
			}
			if string(got.Base.Content) != tc.user || len(got.Edits) != len(c.Edits) {
				t.Errorf("Base = %q with %d edits; want the user's text and the %d edits of the change", got.Base.Content, len(got.Edits), len(c.Edits))
			}
			if !diff.Produces(got.Base.Content, got.Edits, got.After) {
				t.Errorf("the moved edits do not produce After")
			}
			for i, e := range got.Edits {
				if e.NewText != c.Edits[i].NewText {
					t.Errorf("edit %d text %q, want %q", i, e.NewText, c.Edits[i].NewText)
				}
			}
		})
	}
}

func TestRebaseRefusesCreateAndDelete(t *testing.T) {
	for _, c := range []Change{{Path: guard.Path{Rel: "n.txt"}, Create: true}, {Path: guard.Path{Rel: "d.txt"}, Delete: true}} {
		if _, err := Rebase(c, Document{Content: []byte("x\n")}); !errors.Is(err, ErrConflict) {
			t.Errorf("Rebase of create=%v delete=%v: %v, want ErrConflict", c.Create, c.Delete, err)
		}
	}
}
