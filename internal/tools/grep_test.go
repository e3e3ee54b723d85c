package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/catbuddy/cb-ls/internal/search"
	"github.com/google/go-cmp/cmp"
)

const grepTree = `
-- main.go --
package main

func main() {
	println("hello")
}
-- lib/util.go --
package lib

// Hello says hello.
func Hello() string { return "Hello" }
-- lib/util_test.go --
package lib
-- docs/readme.md --
hello world
HELLO again
-- .gitignore --
*.log
/build/
-- app.log --
hello from a log
-- build/out.txt --
hello build
-- sub/.gitignore --
secret.txt
!keep.log
-- sub/secret.txt --
hello secret
-- sub/keep.log --
hello kept
-- sub/deeper/secret.txt --
hello deeper secret
-- .git/config --
hello git
-- .catbuddy/memory.md --
hello state
-- .github/workflows/ci.yml --
run: echo hello
`

func TestGrepBasic(t *testing.T) {
	e := newSearchEnv(t, grepTree)
	got := e.ok("grep", map[string]any{"pattern": "hello"})
	want := `.github/workflows/ci.yml
1:run: echo hello

docs/readme.md
1:hello world

lib/util.go
3:// Hello says hello.

main.go
4:	println("hello")

sub/keep.log
1:hello kept`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grep hello (-want +got):\n%s", diff)
	}
}

func TestGrepOptions(t *testing.T) {
	e := newSearchEnv(t, grepTree)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "hello", "case_insensitive": true, "glob": "*.md"},
			"docs/readme.md\n1:hello world\n2:HELLO again"},
		{map[string]any{"pattern": "^func \\w+\\(\\)", "path": "lib"},
			"lib/util.go\n4:func Hello() string { return \"Hello\" }"},
		{map[string]any{"pattern": `"Hello"`, "literal": true},
			"lib/util.go\n4:func Hello() string { return \"Hello\" }"},
		{map[string]any{"pattern": "Hello() string", "literal": true},
			"lib/util.go\n4:func Hello() string { return \"Hello\" }"},
		{map[string]any{"pattern": "hello", "include": "**/*.go"},
			"lib/util.go\n3:// Hello says hello.\n\nmain.go\n4:\tprintln(\"hello\")"},
		{map[string]any{"pattern": "hello", "glob": "*.{md,yml}"},
			".github/workflows/ci.yml\n1:run: echo hello\n\ndocs/readme.md\n1:hello world"},
		{map[string]any{"pattern": "package", "output_mode": "files_with_matches"},
			"lib/util.go\nlib/util_test.go\nmain.go"},
		{map[string]any{"pattern": "hello", "case_insensitive": true, "output_mode": "count", "path": "docs"},
			"docs/readme.md:2"},
		{map[string]any{"pattern": "hello", "path": "main.go"},
			"main.go\n4:\tprintln(\"hello\")"},
		// A named ignored file is searched: the user asked for it.
		{map[string]any{"pattern": "hello", "path": "app.log"},
			"app.log\n1:hello from a log"},
		{map[string]any{"pattern": "hello", "path": "sub"},
			"sub/keep.log\n1:hello kept"},
		{map[string]any{"pattern": "println", "context": 1},
			"main.go\n3-func main() {\n4:\tprintln(\"hello\")\n5-}"},
		{map[string]any{"pattern": "nothing-like-this"},
			"No matches for `nothing-like-this` in . (8 files searched)."},
		// The pattern as written: a backslash is one backslash.
		{map[string]any{"pattern": `\.err\b|\berr:`},
			"No matches for `\\.err\\b|\\berr:` in . (8 files searched)."},
		{map[string]any{"pattern": "a`b", "path": "main.go"},
			"No matches for \"a`b\" in main.go."},
	}
	for _, c := range cases {
		got := e.ok("grep", c.args)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("grep %v (-want +got):\n%s", c.args, diff)
		}
	}
}

func TestGrepErrors(t *testing.T) {
	e := newSearchEnv(t, grepTree)
	e.fail("grep", map[string]any{"pattern": "a(b"}, `invalid regular expression "a(b"`)
	e.fail("grep", map[string]any{"pattern": ""}, "pattern is empty")
	e.fail("grep", map[string]any{}, "invalid arguments for grep")
	e.fail("grep", map[string]any{"pattern": "x", "path": "../"}, `Access denied: "../" is outside the workspace`)
	e.fail("grep", map[string]any{"pattern": "x", "path": ".catbuddy"}, "Access denied")
	e.fail("grep", map[string]any{"pattern": "x", "path": "nope"}, `path "nope" does not exist`)
	e.fail("grep", map[string]any{"pattern": "x", "context": -1}, "context must be between 0 and 20")
	e.fail("grep", map[string]any{"pattern": "x", "output_mode": "lines"}, "output_mode must be")
	e.fail("grep", map[string]any{"pattern": "x", "glob": "[", "path": "."}, "bad glob pattern")
	e.fail("grep", map[string]any{"pattern": "x", "limit": -1}, "limit must be positive")
	e.fail("grep", map[string]any{"pattern": "a\nb", "literal": true}, "newline")
}

func TestGrepContextGroups(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	e := newSearchEnv(t, "-- f.txt --\n"+b.String())
	got := e.ok("grep", map[string]any{"pattern": `^line (2|4|10)$`, "context": 1})
	want := `f.txt
1-line 1
2:line 2
3-line 3
4:line 4
5-line 5
--
9-line 9
10:line 10
11-line 11`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	got = e.ok("grep", map[string]any{"pattern": `^line 20$`, "context": 3})
	if !strings.HasSuffix(got, "\n20:line 20") || !strings.HasPrefix(got, "f.txt\n17-line 17") {
		t.Errorf("context at end of file:\n%s", got)
	}
}

func TestGrepCapCountsTheRest(t *testing.T) {
	var files strings.Builder
	for f := range 20 {
		fmt.Fprintf(&files, "-- f%02d.txt --\n", f)
		for range 10 {
			files.WriteString("match me\nnot this\n")
		}
	}
	e := newSearchEnv(t, files.String())
	got := e.ok("grep", map[string]any{"pattern": "match", "limit": 15})
	ls := lines(got)
	// f00.txt's heading and 10 matches, a blank line, f01.txt's heading
	// and 5, the summary.
	if len(ls) != 19 {
		t.Fatalf("want 15 matches under 2 paths and a summary, got %d lines:\n%s", len(ls), got)
	}
	if ls[0] != "f00.txt" || ls[1] != "1:match me" || ls[12] != "f01.txt" || ls[17] != "9:match me" {
		t.Errorf("not the first matches in path order:\n%s", got)
	}
	if want := "… and 185 more matches in 19 files (200 matches in 20 files in all; narrow path or glob, or raise limit)"; ls[18] != want {
		t.Errorf("summary = %q, want %q", ls[18], want)
	}
	got = e.ok("grep", map[string]any{"pattern": "match", "output_mode": "files_with_matches", "limit": 3})
	if want := "f00.txt\nf01.txt\nf02.txt\n… and 17 more files (200 matches in 20 files in all)"; got != want {
		t.Errorf("files mode cap:\n%s", got)
	}
}

// TestGrepPruneKeepsFirstFiles drives the collector's memory bound: far
// more matching lines than it may hold, and still the first in order.
func TestGrepPruneKeepsFirstFiles(t *testing.T) {
	var files strings.Builder
	for f := range 300 {
		fmt.Fprintf(&files, "-- d%d/f%03d.txt --\n", f%7, f)
		for range 30 {
			files.WriteString("x\n")
		}
	}
	e := newSearchEnv(t, files.String())
	got := lines(e.ok("grep", map[string]any{"pattern": "x", "limit": 5}))
	want := []string{"d0/f000.txt", "1:x", "2:x", "3:x", "4:x", "5:x",
		"… and 8995 more matches in 300 files (9000 matches in 300 files in all; narrow path or glob, or raise limit)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGrepLinesNeverSpan(t *testing.T) {
	e := newSearchEnv(t, "-- a.txt --\nfoo\nbar\nfoo bar\n")
	if err := os.WriteFile(filepath.Join(e.dir, "crlf.txt"), []byte("zero\r\none\r\ntwo end\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := e.ok("grep", map[string]any{"pattern": `foo\s*bar`})
	if got != "a.txt\n3:foo bar" {
		t.Errorf("a match must not span lines:\n%s", got)
	}
	got = e.ok("grep", map[string]any{"pattern": `o[^x]+b`})
	if got != "a.txt\n3:foo bar" {
		t.Errorf("a negated class must not cross a newline:\n%s", got)
	}
	got = e.ok("grep", map[string]any{"pattern": `end`, "path": "crlf.txt"})
	if got != "crlf.txt\n3:two end" {
		t.Errorf("CRLF line: %q", got)
	}
	got = e.ok("grep", map[string]any{"pattern": `^`, "path": "a.txt", "output_mode": "count"})
	if got != "a.txt:3" {
		t.Errorf("an empty match counts each line once, and no line after the final newline: %q", got)
	}
}

func TestGrepSkipsBinaryLinksAndSpecialFiles(t *testing.T) {
	e := newSearchEnv(t, "-- a.txt --\nneedle\n")
	if err := os.WriteFile(filepath.Join(e.dir, "bin.dat"), []byte("needle\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("needle outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.symlink(outside, "outdir")
	e.symlink(filepath.Join(outside, "x.txt"), "outfile")
	e.symlink("a.txt", "inlink")
	if err := syscall.Mkfifo(filepath.Join(e.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := e.ok("grep", map[string]any{"pattern": "needle"})
	if got != "a.txt\n1:needle" {
		t.Errorf("grep must skip binary files, symlinks and FIFOs:\n%s", got)
	}
	got = e.ok("grep", map[string]any{"pattern": "needle", "path": "bin.dat"})
	if !strings.Contains(got, "bin.dat is a binary file") {
		t.Errorf("named binary file: %q", got)
	}
	got = e.ok("grep", map[string]any{"pattern": "nowhere"})
	if !strings.Contains(got, "1 binary files skipped") {
		t.Errorf("no-match answer should say binary files were skipped: %q", got)
	}
	e.fail("grep", map[string]any{"pattern": "needle", "path": "outdir"}, "outside the workspace")
	e.fail("grep", map[string]any{"pattern": "needle", "path": "pipe"}, "named pipe")
}

func TestGrepLongLinesClipped(t *testing.T) {
	long := strings.Repeat("é", 300) + "needle" + strings.Repeat("z", 1000)
	e := newSearchEnv(t, "-- min.js --\n"+long+"\n")
	got := e.ok("grep", map[string]any{"pattern": "needle"})
	if len(got) > search.GrepMaxLineLen+100 || !strings.Contains(got, "more bytes]") {
		t.Errorf("long line not clipped (%d bytes): %.120q", len(got), got)
	}
}

func TestGrepIsReadOnly(t *testing.T) {
	for _, f := range []Factory{Grep, Glob, ListDir} {
		if tl := f(&ToolContext{}); !tl.ReadOnly {
			t.Errorf("%s must be ReadOnly", tl.Name)
		}
	}
}
