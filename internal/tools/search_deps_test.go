package tools

import (
	"strings"
	"testing"
)

// depsTree is a JavaScript project without a .gitignore: node_modules
// and the lockfile are there, and dist/ is ignored.
const depsTree = `
-- package.json --
{"dependencies": {"left-pad": "1.3.0"}}
-- package-lock.json --
{"packages": {"node_modules/left-pad": {"version": "1.3.0"}}}
-- src/index.js --
import leftPad from "left-pad";
-- node_modules/left-pad/index.js --
module.exports = function leftPad() {};
-- node_modules/left-pad/package.json --
{"name": "left-pad"}
-- lib/.gitignore --
dist/
-- lib/dist/out.js --
leftPad();
`

// TestSearchSkipsDependencies: grep and glob leave node_modules and
// lockfiles out, even without a .gitignore, unless asked: include_ignored,
// a path inside node_modules, or a glob that names them.
func TestSearchSkipsDependencies(t *testing.T) {
	e := newSearchEnv(t, depsTree)
	got := e.ok("grep", map[string]any{"pattern": "left-pad", "output_mode": "files_with_matches"})
	if got != "package.json\nsrc/index.js" {
		t.Errorf("grep left-pad = %q, want the project's own files only", got)
	}
	got = e.ok("grep", map[string]any{"pattern": "left-pad", "output_mode": "files_with_matches", "include_ignored": true})
	for _, want := range []string{"package-lock.json", "node_modules/left-pad/package.json", "src/index.js"} {
		if !strings.Contains(got, want) {
			t.Errorf("grep with include_ignored = %q, lacks %s", got, want)
		}
	}
	if got := e.ok("grep", map[string]any{"pattern": "leftPad", "output_mode": "files_with_matches", "include_ignored": true}); !strings.Contains(got, "lib/dist/out.js") {
		t.Errorf("include_ignored does not search a .gitignored dist/: %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "function leftPad", "path": "node_modules/left-pad"}); !strings.Contains(got, "node_modules/left-pad/index.js\n1:") {
		t.Errorf("grep in node_modules/left-pad = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "version", "glob": "package-lock.json"}); !strings.Contains(got, "package-lock.json\n1:") {
		t.Errorf("a glob naming the lockfile does not search it: %q", got)
	}
	got = e.ok("grep", map[string]any{"pattern": "function leftPad"})
	if !strings.HasPrefix(got, "No matches") || !strings.Contains(got, "node_modules and lockfiles skipped; include_ignored: true searches them") {
		t.Errorf("no match without the note on what was skipped: %q", got)
	}

	if got := e.ok("glob", map[string]any{"pattern": "**/*.json"}); got != "package.json" {
		t.Errorf("glob **/*.json = %q, want package.json alone", got)
	}
	if got := e.ok("glob", map[string]any{"pattern": "**/*.json", "include_ignored": true}); !strings.Contains(got, "node_modules/left-pad/package.json") || !strings.Contains(got, "package-lock.json") {
		t.Errorf("glob with include_ignored = %q", got)
	}
	if got := e.ok("glob", map[string]any{"pattern": "node_modules/**/*.js"}); got != "node_modules/left-pad/index.js" {
		t.Errorf("a glob naming node_modules = %q", got)
	}
}

// TestNegatedGlob: "!pattern" lists what does not match, and says so
// when it excludes everything.
func TestNegatedGlob(t *testing.T) {
	e := newSearchEnv(t, depsTree)
	if got := e.ok("glob", map[string]any{"pattern": "!*.json", "path": "src"}); got != "src/index.js" {
		t.Errorf("glob !*.json in src = %q", got)
	}
	got := e.ok("glob", map[string]any{"pattern": "!*.js", "path": "src"})
	if !strings.Contains(got, `The glob "!*.js" excludes every file in "src"`) {
		t.Errorf("glob !*.js in src = %q, want it to say everything was excluded", got)
	}
	got = e.ok("grep", map[string]any{"pattern": "left", "path": "src", "glob": "!*.js"})
	if !strings.Contains(got, "the glob excludes every file there") {
		t.Errorf("grep with an excluding glob = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "left", "glob": "!*.json", "output_mode": "files_with_matches"}); got != "src/index.js" {
		t.Errorf("grep glob !*.json = %q", got)
	}
}

// TestGrepClampsContextAndNamesOneFile: a context over the maximum is
// clamped with a note; a file without a match is named, not counted as
// "0 files searched".
func TestGrepClampsContextAndNamesOneFile(t *testing.T) {
	e := newSearchEnv(t, depsTree)
	got := e.ok("grep", map[string]any{"pattern": "leftPad", "path": "src/index.js", "context": 50})
	if !strings.HasPrefix(got, "(context 50 is over the maximum: 20 lines are shown around each match)\n") || !strings.Contains(got, "src/index.js\n1:") {
		t.Errorf("grep context 50 = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "absent", "path": "src/index.js"}); got != "No matches for `absent` in src/index.js." {
		t.Errorf("grep of one file without a match = %q", got)
	}
}

// TestGrepMinifiedLineShowsTheMatch: a match deep in a long line is shown
// in a window around it, not as the line's first 400 bytes.
func TestGrepMinifiedLineShowsTheMatch(t *testing.T) {
	line := strings.Repeat("var a=1;", 5000) + "function needle(){return 42}" + strings.Repeat("var b=2;", 5000)
	e := newSearchEnv(t, "-- app.min.js --\n"+line+"\n")
	got := e.ok("grep", map[string]any{"pattern": "needle"})
	if !strings.Contains(got, "function needle(){return 42}") {
		t.Fatalf("grep in a minified line does not show the match:\n%.600s", got)
	}
	if !strings.Contains(got, "app.min.js\n1:[") || !strings.Contains(got, "bytes before] …") || !strings.Contains(got, "more bytes]") {
		t.Errorf("the window does not say what was cut:\n%s", got)
	}
	if len(got) > 600 {
		t.Errorf("the window is %d bytes", len(got))
	}
	if got := e.ok("grep", map[string]any{"pattern": `needle\(\)`}); !strings.Contains(got, "needle(){return") {
		t.Errorf("a regexp match in a minified line is not shown:\n%.600s", got)
	}
}
