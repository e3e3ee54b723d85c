package mcp

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestAssignNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	refs := []toolRef{
		{"a", "b_c"},
		{"a_b", "c"}, // collides with a/b_c
		{"files", "read.file"},
		{"files", "read file"}, // collides after sanitising
		{"my server", "ünïcode"},
		{"s", long},
		{"s", long + "y"}, // same 55-char prefix, different hash
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].server != refs[j].server {
			return refs[i].server < refs[j].server
		}
		return refs[i].tool < refs[j].tool
	})
	got := assignNames(refs)
	seen := map[string]toolRef{}
	for r, n := range got {
		if !validName.MatchString(n) {
			t.Errorf("%v → %q is not a valid model tool name", r, n)
		}
		if !strings.HasPrefix(n, "mcp_") {
			t.Errorf("%v → %q lacks the prefix", r, n)
		}
		if prev, dup := seen[n]; dup {
			t.Errorf("%v and %v both → %q", prev, r, n)
		}
		seen[n] = r
	}
	if got[toolRef{"a", "b_c"}] != "mcp_a_b_c" {
		t.Errorf("first of a collision lost its plain name: %q", got[toolRef{"a", "b_c"}])
	}
	if got[toolRef{"my server", "ünïcode"}] != "mcp_my_server__n_code" {
		t.Errorf("sanitised = %q", got[toolRef{"my server", "ünïcode"}])
	}
	// Deterministic: the same set gives the same names.
	again := assignNames(refs)
	for r, n := range got {
		if again[r] != n {
			t.Errorf("%v: %q then %q", r, n, again[r])
		}
	}
}
