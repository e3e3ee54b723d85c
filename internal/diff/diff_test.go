package diff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDiffEdits: the windowed diff, applied to the old text as patch
// would, gives the new text; its hunk headers and line stats agree with
// its lines.
func TestDiffEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 3000 {
		before := []byte(randLines(r, r.IntN(40)))
		// Random non-overlapping edits, sorted.
		var edits []Edit
		pos := 0
		for pos <= len(before) && r.IntN(3) > 0 {
			start := pos + r.IntN(len(before)-pos+1)
			end := start + r.IntN(min(len(before)-start, 12)+1)
			edits = append(edits, Edit{Start: start, End: end, NewText: randLines(r, r.IntN(3))})
			pos = end + 1
		}
		after, err := Apply(before, edits)
		if err != nil {
			t.Fatal(err)
		}
		d := Compute("f", false, before, edits)
		got, add, rem, err := patch(string(before), d.Unified)
		if err != nil {
			t.Fatalf("iter %d: before %q edits %+v: %v\n%s", iter, before, edits, err, d.Unified)
		}
		if got != string(after) {
			t.Fatalf("iter %d: patched %q, want %q\n%s", iter, got, after, d.Unified)
		}
		if d.Added != add || d.Removed != rem {
			t.Fatalf("iter %d: stats +%d -%d, diff has +%d -%d", iter, d.Added, d.Removed, add, rem)
		}
		if (d.Unified == "") != (string(after) == string(before)) {
			t.Fatalf("iter %d: diff %q for a change %v", iter, d.Unified, string(after) != string(before))
		}
		if err := checkSpans(string(before), string(after), d); err != nil {
			t.Fatalf("iter %d: before %q edits %+v: %v", iter, before, edits, err)
		}
	}
}

// checkSpans rebuilds after from before's lines and the spans' new
// lines, checking that each span's line numbers are where its lines are
// on both sides and that the spans count what the stats count.
func checkSpans(before, after string, d Result) error {
	a, b := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
	var out []string
	i, add, rem := 0, 0, 0 // i: next line of a
	for _, sp := range d.Spans {
		if sp.Old-1 < i || sp.Old-1+sp.OldCount > len(a) || sp.New-1+sp.NewCount > len(b) {
			return fmt.Errorf("span %+v out of order or range", sp)
		}
		out = append(out, a[i:sp.Old-1]...)
		if len(out) != sp.New-1 {
			return fmt.Errorf("span %+v: new text starts at line %d", sp, len(out)+1)
		}
		out = append(out, b[sp.New-1:sp.New-1+sp.NewCount]...)
		i = sp.Old - 1 + sp.OldCount
		add += sp.NewCount
		rem += sp.OldCount
	}
	out = append(out, a[i:]...)
	if got := strings.Join(out, ""); got != after {
		return fmt.Errorf("spans %+v rebuild %q, want %q", d.Spans, got, after)
	}
	if add != d.Added || rem != d.Removed {
		return fmt.Errorf("spans count +%d -%d, stats +%d -%d", add, rem, d.Added, d.Removed)
	}
	return nil
}

// TestPatchRejectsWrongDiffs keeps the checker above honest.
func TestPatchRejectsWrongDiffs(t *testing.T) {
	for _, d := range []string{
		"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-a\n+c\n",     // wrong line number
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+c\n", // counts do not match
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+c\n",     // removes a line that is not there
	} {
		if _, _, _, err := patch("a\nb\n", d); err == nil {
			t.Errorf("patch accepted %q", d)
		}
	}
	if got, _, _, err := patch("a\nb\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+c\n"); err != nil || got != "c\nb\n" {
		t.Errorf("patch = %q, %v", got, err)
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n$`)

// patch applies a unified diff to old strictly: every context and
// removed line must be where the hunk header says, and the header's
// counts must match the hunk's lines.
func patch(old, diff string) (string, int, int, error) {
	if diff == "" {
		return old, 0, 0, nil
	}
	oldLines := strings.SplitAfter(old, "\n")
	if oldLines[len(oldLines)-1] == "" {
		oldLines = oldLines[:len(oldLines)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", 0, 0, fmt.Errorf("no file header")
	}
	var out []string
	next, add, rem := 0, 0, 0 // next: the first old line (0-based) not yet used
	lastKind := byte(0)
	fromLeft, toLeft := 0, 0 // lines the current hunk header still announces
	num := func(s string) int {
		if s == "" {
			return 1
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	for _, l := range lines[2:] {
		if l == "" {
			continue
		}
		if l == "\\ No newline at end of file\n" {
			if lastKind == ' ' || lastKind == '+' {
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
			}
			continue
		}
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			if fromLeft != 0 || toLeft != 0 {
				return "", 0, 0, fmt.Errorf("hunk before %q is short by -%d +%d lines", l, fromLeft, toLeft)
			}
			a, b, d := num(m[1]), num(m[2]), num(m[4])
			from := a - 1
			if b == 0 {
				from = a
			}
			if from < next || from > len(oldLines) {
				return "", 0, 0, fmt.Errorf("hunk %q out of order or range", l)
			}
			out = append(out, oldLines[next:from]...)
			next, fromLeft, toLeft = from, b, d
			continue
		}
		body := l[1:]
		switch l[0] {
		case ' ', '-':
			if next >= len(oldLines) || strings.TrimSuffix(oldLines[next], "\n") != strings.TrimSuffix(body, "\n") {
				return "", 0, 0, fmt.Errorf("old line %d: diff has %q", next+1, body)
			}
			next++
			fromLeft--
			if l[0] == ' ' {
				out = append(out, oldLines[next-1])
				toLeft--
			} else {
				rem++
			}
		case '+':
			out = append(out, body)
			add++
			toLeft--
		default:
			return "", 0, 0, fmt.Errorf("bad diff line %q", l)
		}
		lastKind = l[0]
	}
	if fromLeft != 0 || toLeft != 0 {
		return "", 0, 0, fmt.Errorf("last hunk is short by -%d +%d lines", fromLeft, toLeft)
	}
	out = append(out, oldLines[next:]...)
	return strings.Join(out, ""), add, rem, nil
}

func randLines(r *rand.Rand, n int) string {
	words := []string{"a", "b", "c", "foo", "", " x"}
	var b strings.Builder
	for range n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(8) > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestLineEdits: write_file's edits are line-aligned, produce the new
// content, and touch only the lines that changed.
func TestLineEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 3000 {
		before := randLines(r, r.IntN(30))
		after := randLines(r, r.IntN(30))
		if r.IntN(2) == 0 { // often a small change of the same text
			after = strings.Replace(before, "foo", "bar", 1)
		}
		edits := LineEdits([]byte(before), []byte(after))
		got, err := Apply([]byte(before), edits)
		if err != nil || string(got) != after {
			t.Fatalf("iter %d: %q → %q via %+v gave %q (%v)", iter, before, after, edits, got, err)
		}
		for _, e := range edits {
			if e.Start > 0 && before[e.Start-1] != '\n' {
				t.Fatalf("iter %d: edit %+v does not start a line of %q", iter, e, before)
			}
		}
	}
	if e := LineEdits([]byte("same\n"), []byte("same\n")); e != nil {
		t.Errorf("equal texts gave edits %+v", e)
	}
}

func TestDiffEditsCaps(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("line\n")
		_ = i
	}
	d := Compute("big", true, nil, []Edit{{NewText: b.String()}})
	if d.Added != 5000 || d.Removed != 0 {
		t.Errorf("stats +%d -%d", d.Added, d.Removed)
	}
	if n := strings.Count(d.Unified, "\n"); n > maxDiffLines+2 {
		t.Errorf("diff has %d lines", n)
	}
	if !strings.Contains(d.Unified, "more diff lines not shown") {
		t.Errorf("no note on the cut:\n%.300s", d.Unified)
	}
}
