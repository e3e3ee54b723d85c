package tools

import (
	"path"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// similarFiles suggests up to three existing files for a path that does
// not exist: names in its directory that differ only
// in case, extension, or by a typo or two. Models often guess a path
// from memory; the suggestion saves a round of list_dir.
func similarFiles(p guard.Path) []string {
	dir, base := path.Split(p.Rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	d, err := safefile.OpenBeneath(p.Root, dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	f, err := d.OpenSelf()
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(2000) // bounded: a huge directory gets a partial look
	if err != nil && len(names) == 0 {
		return nil
	}
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	want := strings.ToLower(base)
	wantStem := strings.TrimSuffix(want, path.Ext(want))
	for _, n := range names {
		l := strings.ToLower(n)
		d := editDistance(want, l, 3)
		if stem := strings.TrimSuffix(l, path.Ext(l)); stem == wantStem && stem != "" {
			d = min(d, 1)
		}
		if d <= 2 && d < len(want) {
			cands = append(cands, cand{n, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cands[:min(3, len(cands))] {
		out = append(out, path.Join(dir, c.name))
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, or limit once it
// is known to be at least limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
