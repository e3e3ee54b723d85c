package tools

import (
	"strings"
	"testing"
)

// lexKindAt tells code from comments and strings in each family: Go's
// raw strings, Python's triple quotes and # comments, Rust's lifetimes
// (code) beside its character literals.
func TestLexKindAt(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      map[string]lexKind // the first occurrence of each word
	}{
		{"a.go", "// Add doc\nfunc Add() { s := \"Add\\\" x\"; r := `Tot\nal`; c := 'q' /* Blk */ }\n",
			map[string]lexKind{"doc": lexComment, "func": lexCode, "x": lexString, "Tot": lexString, "al": lexString, "q": lexString, "Blk": lexComment, "}": lexCode}},
		{"a.py", "# Add\ndef add():\n    '''Doc\n    more'''\n    return \"Add\" + x  # tail\n",
			map[string]lexKind{"def": lexCode, "Doc": lexString, "more": lexString, "return": lexCode, "x": lexCode, "tail": lexComment}},
		{"a.rs", "fn f<'a>(s: &'a str) -> char { let c = 'z'; \"lit\" } // end\n",
			map[string]lexKind{"str": lexCode, "char": lexCode, "let": lexCode, "z": lexString, "lit": lexString, "end": lexComment}},
		{"a.txt", "// not a comment here\n", map[string]lexKind{"comment": lexCode}},
		{"b.go", "s := \"open\nnext := 1\n", map[string]lexKind{"open": lexString, "next": lexCode}},
	} {
		regions := lexRegions(tc.path, []byte(tc.src))
		for word, want := range tc.want {
			off := strings.Index(tc.src, word)
			if off < 0 {
				t.Fatalf("%s: %q not in the source", tc.path, word)
			}
			if got := lexKindAt(regions, off); got != want {
				t.Errorf("%s: %q is %v, want %v", tc.path, word, got, want)
			}
		}
	}
}
