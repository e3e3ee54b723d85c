package search

import (
	"path"
	"testing"
)

// TestGlobSuffixFastPath: "*<literal>" patterns take a suffix test that
// answers exactly as path.Match; anchored .gitignore lines do not.
func TestGlobSuffixFastPath(t *testing.T) {
	names := []string{"a.tmp", ".tmp", "x/y/b.tmp", "a.tmpx", "tmp", "a.TMP", "dir.tmp/c", "a.go", ""}
	for _, pat := range []string{"*.tmp", "*tmp", "*.", "*~", "*.min.js"} {
		g, err := compileGlob(pat)
		if err != nil || g.suffix == "" {
			t.Fatalf("%s: suffix %q, %v", pat, g.suffix, err)
		}
		for _, n := range names {
			want, _ := path.Match(pat, path.Base(n))
			if got := g.match(n); got != want {
				t.Errorf("%s ~ %q = %v, path.Match says %v", pat, n, got, want)
			}
		}
	}
	for _, pat := range []string{"*", "*.[ch]", "*?", `*\*`, "a*.tmp", "**"} {
		if g, _ := compileGlob(pat); g.suffix != "" {
			t.Errorf("%s took the suffix path (%q)", pat, g.suffix)
		}
	}
	// "/*.tmp" in a .gitignore matches at its own directory only.
	f := parseGitignore("", []byte("/*.tmp\n"))
	c := (*ignoreChain)(nil).push(f)
	if !c.ignored("a.tmp", false) || c.ignored("sub/a.tmp", false) {
		t.Errorf("anchored /*.tmp: a.tmp %v, sub/a.tmp %v", c.ignored("a.tmp", false), c.ignored("sub/a.tmp", false))
	}
}
