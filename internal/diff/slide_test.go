package diff

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// slideCases are the classic sliders: the LCS alone shows each change
// one block off (a removed function starting at the closing brace of
// the one before it). want is git's diff, as git diff prints it with its
// default indent heuristic, without the section after the @@.
var slideCases = []struct {
	name, before, after, want string
}{
	{
		name:   "removed Go function",
		before: "package p\n\nfunc a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n\nfunc c() {\n\tz()\n}\n",
		after:  "package p\n\nfunc a() {\n\tx()\n}\n\nfunc c() {\n\tz()\n}\n",
		want:   "@@ -4,10 +4,6 @@\n \tx()\n }\n \n-func b() {\n-\ty()\n-}\n-\n func c() {\n \tz()\n }\n",
	},
	{
		name:   "added Go function",
		before: "package p\n\nfunc a() {\n\tx()\n}\n\nfunc c() {\n\tz()\n}\n",
		after:  "package p\n\nfunc a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n\nfunc c() {\n\tz()\n}\n",
		want:   "@@ -4,6 +4,10 @@\n \tx()\n }\n \n+func b() {\n+\ty()\n+}\n+\n func c() {\n \tz()\n }\n",
	},
	{
		name:   "removed block in braces",
		before: "func f() {\n\tif a {\n\t\tx()\n\t}\n\tif b {\n\t\tx()\n\t}\n\treturn\n}\n",
		after:  "func f() {\n\tif a {\n\t\tx()\n\t}\n\treturn\n}\n",
		want:   "@@ -2,8 +2,5 @@\n \tif a {\n \t\tx()\n \t}\n-\tif b {\n-\t\tx()\n-\t}\n \treturn\n }\n",
	},
	{
		name:   "removed Python def",
		before: "def a():\n    x()\n\n\ndef b():\n    y()\n\n\ndef c():\n    z()\n",
		after:  "def a():\n    x()\n\n\ndef c():\n    z()\n",
		want:   "@@ -2,9 +2,5 @@\n     x()\n \n \n-def b():\n-    y()\n-\n-\n def c():\n     z()\n",
	},
	{
		name:   "removed Python method",
		before: "class C:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 1\n\n    def c(self):\n        return 3\n",
		after:  "class C:\n    def a(self):\n        return 1\n\n    def c(self):\n        return 3\n",
		want:   "@@ -2,8 +2,5 @@\n     def a(self):\n         return 1\n \n-    def b(self):\n-        return 1\n-\n     def c(self):\n         return 3\n",
	},
}

// TestDiffSlidesLikeGit: the echoed diff of each classic slider is
// git's, through both ways a write is diffed: an edit of exactly the
// changed text (edit_file) and a whole new content (write_file).
func TestDiffSlidesLikeGit(t *testing.T) {
	for _, c := range slideCases {
		t.Run(c.name, func(t *testing.T) {
			header := "--- a/f\n+++ b/f\n"
			edits := LineEdits([]byte(c.before), []byte(c.after))
			if got := Compute("f", false, []byte(c.before), edits).Unified; got != header+c.want {
				t.Errorf("write_file's diff:\n%s\nwant:\n%s%s", got, header, c.want)
			}
			// The edit a model's old_string makes: the lines the LCS
			// picks, one block off, which the diff must not follow.
			if got := Compute("f", false, []byte(c.before), []Edit{offEdit(c.before, c.after)}).Unified; got != header+c.want {
				t.Errorf("edit_file's diff:\n%s\nwant:\n%s%s", got, header, c.want)
			}
		})
	}
}

// offEdit is the one edit that turns before into after (a block added
// or removed) placed as high as the block can slide: where a diff
// without the heuristic may well put it.
func offEdit(before, after string) Edit {
	p := startOfLine([]byte(before), commonPrefix([]byte(before), []byte(after)))
	s := commonSuffix([]byte(before[p:]), []byte(after[p:]))
	e := Edit{Start: p, End: len(before) - s, NewText: after[p : len(after)-s]}
	block := before[e.Start:e.End] + e.NewText // one of them is empty
	for e.Start > 0 {
		prev := startOfLine([]byte(before), e.Start-1)
		lines := splitKeepEnds(block)
		if before[prev:e.Start] != lines[len(lines)-1] {
			break
		}
		block = before[prev:e.Start] + strings.Join(lines[:len(lines)-1], "")
		if e.NewText == "" {
			e.Start, e.End = prev, e.End-(e.Start-prev)
		} else {
			e.Start, e.End, e.NewText = prev, prev, block
		}
	}
	return e
}

// TestReviewHunksSlideToo: the hunk the editor reviews for a write_file
// is the one the diff shows.
func TestReviewHunksSlideToo(t *testing.T) {
	c := slideCases[0]
	edits := LineEdits([]byte(c.before), []byte(c.after))
	if len(edits) != 1 {
		t.Fatalf("edits %+v", edits)
	}
	if got := c.before[edits[0].Start:edits[0].End]; got != "func b() {\n\ty()\n}\n\n" {
		t.Errorf("the review hunk removes %q", got)
	}
}

// TestDiffAgreesWithGit compares the echoed diff with git diff's on
// random code-like files with one block added or removed: the case
// where every minimal diff is the same change slid, so that the
// heuristic alone decides. git ships with the project's tools.
func TestDiffAgreesWithGit(t *testing.T) {
	git := testenv.NeedsTool(t, "git", "comparing echoed diffs with git diff's", "apt-get install git")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	agree := 0
	for iter := range 150 {
		lines := codeLines(r, 8+r.IntN(30))
		at := r.IntN(len(lines))
		n := 1 + r.IntN(min(6, len(lines)-at))
		short := strings.Join(append(append([]string{}, lines[:at]...), lines[at+n:]...), "")
		long := strings.Join(lines, "")
		before, after := long, short
		if iter%2 == 1 {
			before, after = short, long
		}
		if before == after {
			continue
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := os.WriteFile(a, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, []byte(after), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(git, "-c", "diff.indentHeuristic=true", "diff", "--no-index", "--no-color", "-U3", a, b).Output()
		want := gitHunks(string(out))
		edits := LineEdits([]byte(before), []byte(after))
		got := Compute("f", false, []byte(before), edits).Unified
		got = strings.TrimPrefix(got, "--- a/f\n+++ b/f\n")
		if got != want {
			t.Fatalf("iter %d: before\n%s\nafter\n%s\ngot\n%s\ngit\n%s", iter, before, after, got, want)
		}
		agree++
	}
	t.Logf("%d diffs equal to git's", agree)
}

// gitHunks keeps the hunks of git diff's output, without the section
// text git puts after a hunk header.
func gitHunks(out string) string {
	var b strings.Builder
	inHunks := false
	for l := range strings.SplitAfterSeq(out, "\n") {
		if strings.HasPrefix(l, "@@ ") {
			inHunks = true
			l = l[:strings.Index(l[3:], " @@")+6] + "\n"
		}
		if inHunks {
			b.WriteString(l)
		}
	}
	return b.String()
}

// codeLines makes lines that look like Go: functions with bodies of
// statements and nested blocks, blank lines between them, and lines
// that repeat (closing braces, a common call), which is what makes
// changes slide.
func codeLines(r *rand.Rand, n int) []string {
	var out []string
	depth := 0
	for len(out) < n || depth > 0 {
		ind := strings.Repeat("\t", depth)
		switch k := r.IntN(10); {
		case depth == 0 && k < 7:
			out = append(out, "func f"+string(rune('a'+r.IntN(4)))+"() {\n")
			depth++
		case depth == 0:
			out = append(out, "\n")
		case k < 2 && depth < 3:
			out = append(out, ind+"if x {\n")
			depth++
		case k < 5:
			out = append(out, ind+[]string{"x()", "y()", "return"}[r.IntN(3)]+"\n")
		case k < 6:
			out = append(out, "\n")
		default:
			out = append(out, strings.Repeat("\t", depth-1)+"}\n")
			depth--
			if depth == 0 && r.IntN(2) == 0 {
				out = append(out, "\n")
			}
		}
	}
	return out
}
