package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const globTree = `
-- go.mod --
module x
-- cmd/app/main.go --
package main
-- cmd/tool/main.go --
package main
-- internal/a.go --
package internal
-- internal/a_test.go --
package internal
-- web/src/App.tsx --
x
-- web/src/index.ts --
x
-- web/node_modules/react/index.js --
x
-- web/.gitignore --
node_modules/
-- README.md --
# x
-- docs/guide.md --
# x
-- .catbuddy/notes.md --
x
-- .git/HEAD --
x
-- empty/ --
`

func TestGlob(t *testing.T) {
	e := newSearchEnv(t, globTree)
	e.symlink("internal", "linkdir")
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "**/*.go"},
			"cmd/app/main.go\ncmd/tool/main.go\ninternal/a.go\ninternal/a_test.go"},
		{map[string]any{"pattern": "*.go"}, // no slash: any depth
			"cmd/app/main.go\ncmd/tool/main.go\ninternal/a.go\ninternal/a_test.go"},
		{map[string]any{"pattern": "cmd/*/main.go"},
			"cmd/app/main.go\ncmd/tool/main.go"},
		{map[string]any{"pattern": "*_test.go", "path": "internal"},
			"internal/a_test.go"},
		{map[string]any{"pattern": "src/**/*.{ts,tsx}", "path": "web"},
			"web/src/App.tsx\nweb/src/index.ts"},
		{map[string]any{"pattern": "**/*.md"},
			"README.md\ndocs/guide.md"},
		{map[string]any{"pattern": "cmd/**"},
			"cmd/app/\ncmd/app/main.go\ncmd/tool/\ncmd/tool/main.go"},
		{map[string]any{"pattern": "[ei]*"},
			"empty/\ninternal/\nweb/src/index.ts"},
		{map[string]any{"pattern": "link*"}, // listed, not followed
			"linkdir"},
		{map[string]any{"pattern": "**/*.java"},
			`No files match "**/*.java" in ".".`},
		{map[string]any{"pattern": "**/*.go", "limit": 2},
			"cmd/app/main.go\ncmd/tool/main.go\n… and 2 more paths (4 in all; narrow the pattern or path, or raise limit)"},
	}
	for _, c := range cases {
		got := e.ok("glob", c.args)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("glob %v (-want +got):\n%s", c.args, diff)
		}
	}
	e.fail("glob", map[string]any{"pattern": "/etc/*"}, "must be relative")
	e.fail("glob", map[string]any{"pattern": "../*"}, "must be relative")
	e.fail("glob", map[string]any{"pattern": "*", "path": "../.."}, "outside the workspace")
	e.fail("glob", map[string]any{"pattern": "*", "path": "go.mod"}, "is a file")
	e.fail("glob", map[string]any{"pattern": "a[b"}, "bad glob pattern")
	e.fail("glob", map[string]any{"pattern": "*", "path": ".catbuddy"}, "Access denied")
}

func TestGlobLargeTreeIsSorted(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "-- d%d/sub%d/f%d.txt --\nx\n", i%9, i%4, i)
	}
	e := newSearchEnv(t, b.String())
	first := e.ok("glob", map[string]any{"pattern": "**/*.txt", "limit": 1000})
	for range 3 {
		if again := e.ok("glob", map[string]any{"pattern": "**/*.txt", "limit": 1000}); again != first {
			t.Fatal("glob output differs between runs")
		}
	}
	ls := lines(first)
	if len(ls) != 200 {
		t.Fatalf("got %d paths", len(ls))
	}
	for i := 1; i < len(ls); i++ {
		if ls[i-1] >= ls[i] {
			t.Fatalf("not sorted at %d: %s >= %s", i, ls[i-1], ls[i])
		}
	}
}
