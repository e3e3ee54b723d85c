package search

import "testing"

func TestRequiredLiteral(t *testing.T) {
	cases := map[string]struct {
		lit     string
		litOnly bool
	}{
		"context.Context":                {"context", false},
		`context\.Context`:               {"context.Context", true},
		`func \w+\(ctx context\.Context`: {"(ctx context.Context", false},
		`(foo|bar)baz`:                   {"baz", false},
		`a+bcd`:                          {"bcd", false},
		`x*`:                             {"", false},
		`(?i)hello`:                      {"", false},
		`hello`:                          {"hello", true},
		`^hello$`:                        {"hello", false},
	}
	folds := map[string]string{
		"context.context":  "context",
		`context\.context`: "context.context",
		"Mask":             "ma",
		"a(?:BC)+d":        "bc",
		"ks":               "",
	}
	for pat, want := range folds {
		m, err := newLineMatcher(pat, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.lit != nil || string(m.foldLit) != want {
			t.Errorf("(?i)%q: lit %q foldLit %q, want foldLit %q", pat, m.lit, m.foldLit, want)
		}
	}
	for pat, want := range cases {
		m, err := newLineMatcher(pat, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.lit) != want.lit || m.litOnly != want.litOnly {
			t.Errorf("%q: lit %q litOnly %v, want %q %v", pat, m.lit, m.litOnly, want.lit, want.litOnly)
		}
	}
}
