package search

import "testing"

func TestGitignoreRules(t *testing.T) {
	root := parseGitignore("", []byte(`
# comment
*.log
!important.log
/build
docs/*.html
tmp/
**/cache/**
\#hash
trailing\ 
foo/**/bar
`))
	sub := parseGitignore("sub", []byte("*.txt\n!keep.txt\n/only-here\n"))
	chain := (*ignoreChain)(nil).push(root).push(sub)
	cases := []struct {
		rel   string
		dir   bool
		want  bool
		cause string
	}{
		{"a.log", false, true, "basename at root"},
		{"x/y/a.log", false, true, "basename at depth"},
		{"important.log", false, false, "negation"},
		{"build", true, true, "anchored"},
		{"x/build", true, false, "anchored only at its directory"},
		{"docs/a.html", false, true, "anchored with slash"},
		{"docs/x/a.html", false, false, "* does not cross /"},
		{"tmp", true, true, "dir-only on a dir"},
		{"tmp", false, false, "dir-only on a file"},
		{"a/cache/x", false, true, "**/cache/**"},
		{"#hash", false, true, "escaped #"},
		{"trailing ", false, true, "escaped trailing space"},
		{"foo/bar", false, true, "a/**/b with zero segments"},
		{"foo/a/b/bar", false, true, "a/**/b with several"},
		{"sub/a.txt", false, true, "nested file's rule"},
		{"sub/keep.txt", false, false, "nested negation"},
		{"a.txt", false, false, "nested rule does not apply above"},
		{"sub/only-here", false, true, "nested anchored"},
		{"sub/x/only-here", false, false, "nested anchored, deeper"},
		{"sub/x.log", false, true, "parent rule still applies below"},
	}
	for _, c := range cases {
		if got := chain.ignored(c.rel, c.dir); got != c.want {
			t.Errorf("%s: ignored(%q) = %v, want %v", c.cause, c.rel, got, c.want)
		}
	}
}
