package search

import "testing"

func TestGlobPatterns(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**", "a", false},
		{"a/**", "a/x", true},
		{"*.go", "x/y.go", true},
		{"x/*.go", "x/y/z.go", false},
		{"a**b", "axxb", true},
		{"[!a]*", "bcd", true},
		{"[!a]*", "abc", false},
		{`\*`, "*", true},
		{"{a,b{c,d}}.txt", "bd.txt", true},
		{"{a,b{c,d}}.txt", "b.txt", false},
		{"{only}.txt", "{only}.txt", true},
	}
	for _, c := range cases {
		gs, err := CompileGlobs(c.pat)
		if err != nil {
			t.Fatalf("%q: %v", c.pat, err)
		}
		if got := gs.Match(c.path); got != c.want {
			t.Errorf("glob %q on %q = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}
