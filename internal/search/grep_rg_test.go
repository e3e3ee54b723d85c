package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// TestGrepMatchesRipgrep generates a tree (nested .gitignore files with
// negations, hidden files, binary files, CRLF, UTF-8, files without a
// final newline, symlinks) and checks that grep reports exactly the
// lines ripgrep reports, for literal and regexp patterns.
func TestGrepMatchesRipgrep(t *testing.T) {
	rg := testenv.NeedsTool(t, "rg", "comparing grep's matches with ripgrep's", "apt-get install ripgrep")
	dir := writeTree(t, "")
	genTree(t, dir, rand.New(rand.NewPCG(7, 11)))
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	start, err := g.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pattern       string
		literal, fold bool
	}{
		{pattern: "foo", literal: true},
		{pattern: "a.b(", literal: true},
		{pattern: "Hello", literal: true, fold: true},
		{pattern: `fo+\w*`},
		{pattern: `^\s*func \w+\(`},
		{pattern: `\bbar$`},
		{pattern: `[0-9]{3}`},
		{pattern: `(?i)héllo|wörld`},
		{pattern: `q[^z]*z`},
		{pattern: `.`},
		{pattern: "key", fold: true},
		{pattern: "STOP", literal: true, fold: true},
		{pattern: `fo+ ba[rz]`, fold: true},
		{pattern: "A.B(", literal: true, fold: true},
		{pattern: `x*`},
	}
	for _, c := range cases {
		grep, err := NewGrep(GrepQuery{Pattern: c.pattern, Literal: c.literal, CaseInsensitive: c.fold, Limit: GrepMaxLimit})
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		res, err := grep.Tree(t.Context(), start, Displayer(dir, start), ".")
		if err != nil {
			t.Fatalf("grep %q: %v", c.pattern, err)
		}
		ours := grepKeys(t, res)
		rgArgs := []string{"--no-config", "--no-ignore-global", "--no-require-git", "--hidden", "-g", "!.git/", "-g", "!.catbuddy/",
			"-n", "--heading", "--color", "never", "--no-messages"}
		if c.literal {
			rgArgs = append(rgArgs, "-F")
		}
		if c.fold {
			rgArgs = append(rgArgs, "-i")
		}
		cmd := exec.Command(rg, append(rgArgs, "-e", c.pattern, ".")...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil && len(out) > 0 {
			t.Fatalf("rg %q: %v", c.pattern, err)
		}
		theirs := grepKeys(t, strings.TrimRight(string(out), "\n"))
		if len(theirs) == 0 {
			t.Fatalf("rg found nothing for %q: the generated tree does not exercise it", c.pattern)
		}
		t.Logf("%q: %d matching lines", c.pattern, len(theirs))
		if diff := cmp.Diff(theirs, ours); diff != "" {
			t.Errorf("grep %q differs from ripgrep (-rg +ours):\n%s", c.pattern, diff)
		}
	}
}

// grepKeys turns --heading output (a path, then its line:text lines,
// a blank line between files) into sorted "path:line" keys.
func grepKeys(t *testing.T, out string) []string {
	t.Helper()
	var keys []string
	path := ""
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			path = ""
			continue
		}
		if strings.HasPrefix(l, "No matches") {
			continue
		}
		if strings.HasPrefix(l, "… and") {
			t.Fatalf("output was capped: %s", l)
		}
		if path == "" {
			path = strings.TrimPrefix(l, "./")
			continue
		}
		num, _, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("not line:text under %s: %q", path, l)
		}
		keys = append(keys, path+":"+num)
	}
	slices.Sort(keys)
	return keys
}

var genWords = []string{"foo", "fooo", "bar", "baz", "func main(", "  func Do(x)", "a.b(c)", "héllo", "WÖRLD", "Hello", "HELLO",
	"123", "4567", "q..z", "q\tz", "", "x", "quux", "bar foo", "a.b(", "foo_bar", "xbar",
	"Key", "\u212Aey", "ſtop", "STOP", "Foo Baz", "A.B(x)"}

func genLine(r *rand.Rand) string {
	n := r.IntN(4)
	var ws []string
	for range n {
		ws = append(ws, genWords[r.IntN(len(genWords))])
	}
	return strings.Join(ws, " ")
}

func genTree(t *testing.T, dir string, r *rand.Rand) {
	t.Helper()
	dirs := []string{".", "a", "a/b", "a/b/c", ".hidden", "build", "vendor/x", "d e"}
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 120 {
		d := dirs[r.IntN(len(dirs))]
		ext := []string{".go", ".txt", ".log", ".md", ""}[r.IntN(5)]
		var b strings.Builder
		nl := "\n"
		if r.IntN(6) == 0 {
			nl = "\r\n"
		}
		for range r.IntN(30) {
			b.WriteString(genLine(r) + nl)
		}
		s := b.String()
		if r.IntN(5) == 0 {
			s = strings.TrimSuffix(s, nl) // no final newline
		}
		if r.IntN(15) == 0 {
			s = "\x00binary" + s
		}
		write(fmt.Sprintf("%s/f%03d%s", d, i, ext), []byte(s))
	}
	// Files large enough to be mapped rather than read: text, in long
	// lines so that the output of "." stays under its cap, and binary
	// with a NUL byte in its first block.
	var big strings.Builder
	for big.Len() < 300<<10 {
		for range 1000 {
			big.WriteString(genLine(r) + " ~ ")
		}
		big.WriteString("\n")
	}
	write("a/big.txt", []byte(big.String()+genLine(r)))
	write("big.bin", []byte("\x00"+big.String()))
	write(".gitignore", []byte("*.log\n/build/\n!a/keep.log\n"))
	write("a/.gitignore", []byte("b/c/\n*.md\n!important.md\n"))
	write("a/keep.log", []byte("foo kept\n"))
	write("a/important.md", []byte("foo important\n"))
	write("vendor/.gitignore", []byte("x/*.txt\n"))
	write(".git/config", []byte("foo\n"))
	write(".catbuddy/memory.md", []byte("foo\n"))
	write("empty.txt", nil)
	if err := os.Symlink("a", filepath.Join(dir, "link_a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/keep.log", filepath.Join(dir, "link_keep.txt")); err != nil {
		t.Fatal(err)
	}
}
