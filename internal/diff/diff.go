package diff

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// slideReach is how many lines around an edit its diff looks at: the
// context, and room for a change to slide to where git would show it
// (see slideChanges) and for the blank lines that weigh on that.
const slideReach = diffContext + 2*maxBlanks

// Caps that keep a diff "compact" in a tool result: the model needs to
// see what happened, not a second copy of a rewritten file.
const (
	maxDiffLines = 200
	maxDiffBytes = 32 << 10
)

// Result is what a write changed, in lines.
type Result struct {
	Added, Removed int
	// Unified is a unified diff, capped at maxDiffLines/maxDiffBytes
	// with a note saying how much was left out.
	Unified string
	// Spans are the changes without context, every one of them (the caps
	// bound Unified only): where each lies in the old and the new text.
	Spans []Span
}

// Span is one change of a diff without context: OldCount lines of the
// old text from line Old became NewCount lines of the new text from
// line New (1-based). A pure deletion has NewCount 0 and New the line
// after the gap; a pure insertion has OldCount 0.
type Span struct {
	Old, OldCount int
	New, NewCount int
}

// NewLast is the last line of the new text the span holds (New-1 for a
// pure deletion: the line before the gap).
func (s Span) NewLast() int { return s.New + s.NewCount - 1 }

// Compute computes the line stats and a unified diff of applying
// edits (sorted, non-overlapping) to before. It looks only at windows
// around the edits, so a one-line edit of a 10 MB file costs one scan
// for line numbers, not a diff of the whole file.
func Compute(rel string, create bool, before []byte, edits []Edit) Result {
	from, to := "a/"+rel, "b/"+rel
	if create {
		from = "/dev/null"
	}
	var (
		d        Result
		b        strings.Builder
		lineBase int // lines of before preceding the current window
		scanned  int // bytes of before counted into lineBase
		delta    int // lines added minus removed by earlier windows
		lines    int // diff lines written
		omitted  int // diff lines left out by the caps
	)
	for i := 0; i < len(edits); {
		// A window is the edits' lines plus slideReach lines each side,
		// merged with the next edit's window when they touch: room for
		// a change to slide and for the hunks' context. Hunks are cut
		// from the window's diff as from a whole-file diff.
		ws := startOfLine(before, edits[i].Start)
		ws = backLines(before, ws, slideReach)
		we := forwardLines(before, endOfLine(before, edits[i].End), slideReach)
		j := i + 1
		for j < len(edits) {
			ns := backLines(before, startOfLine(before, edits[j].Start), slideReach)
			if ns > we {
				break
			}
			we = forwardLines(before, endOfLine(before, edits[j].End), slideReach)
			j++
		}
		lineBase += bytes.Count(before[scanned:ws], nl)
		scanned = ws

		oldText := string(before[ws:we])
		newText := spliceWindow(before, ws, we, edits[i:j])
		ld := diffLines(oldText, newText)
		for _, h := range ld.hunks(0) {
			sp := Span{Old: h.fromLine + lineBase, New: h.toLine + lineBase + delta}
			for _, l := range h.ops {
				switch l.kind {
				case '-':
					sp.OldCount++
				case '+':
					sp.NewCount++
				}
			}
			d.Spans = append(d.Spans, sp)
		}
		for _, h := range ld.hunks(diffContext) {
			var hb strings.Builder
			fromCount, toCount := 0, 0
			for _, l := range h.ops {
				switch l.kind {
				case '-':
					fromCount++
					d.Removed++
				case '+':
					toCount++
					d.Added++
				default:
					fromCount++
					toCount++
				}
				hb.WriteByte(l.kind)
				// A CRLF file's lines read as plain lines, as read_file shows them.
				hb.WriteString(strings.TrimSuffix(strings.TrimSuffix(l.text, "\n"), "\r"))
				hb.WriteByte('\n')
				if !strings.HasSuffix(l.text, "\n") {
					hb.WriteString("\\ No newline at end of file\n")
				}
			}
			header := fmt.Sprintf("@@ -%s +%s @@\n",
				hunkRange(h.fromLine+lineBase, fromCount),
				hunkRange(h.toLine+lineBase+delta, toCount))
			body := hb.String()
			n := 1 + strings.Count(body, "\n")
			if omitted > 0 || lines+n > maxDiffLines || b.Len()+len(header)+len(body) > maxDiffBytes {
				omitted += n
				continue
			}
			if b.Len() == 0 {
				fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
			}
			b.WriteString(header)
			b.WriteString(body)
			lines += n
		}
		delta += strings.Count(newText, "\n") - strings.Count(oldText, "\n")
		i = j
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "... (%d more diff lines not shown)\n", omitted)
	}
	d.Unified = b.String()
	return d
}

var nl = []byte{'\n'}

// hunkRange formats one side of a hunk header the way GNU diff does.
func hunkRange(line, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}

// spliceWindow returns before[ws:we] with edits (all inside it) applied.
func spliceWindow(before []byte, ws, we int, edits []Edit) string {
	var b strings.Builder
	pos := ws
	for _, e := range edits {
		b.Write(before[pos:e.Start])
		b.WriteString(e.NewText)
		pos = e.End
	}
	b.Write(before[pos:we])
	return b.String()
}

// startOfLine returns the offset of the start of the line holding off.
func startOfLine(s []byte, off int) int {
	return bytes.LastIndexByte(s[:off], '\n') + 1
}

// endOfLine returns the offset just past the newline that ends the line
// holding off (or len(s)). An offset at a line start counts as inside
// that line, so insertions there see the line they join.
func endOfLine(s []byte, off int) int {
	if i := bytes.IndexByte(s[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(s)
}

// backLines moves the line start off back by n lines.
func backLines(s []byte, off, n int) int {
	for ; n > 0 && off > 0; n-- {
		off = startOfLine(s, off-1)
	}
	return off
}

// forwardLines moves the line start off forward by n lines.
func forwardLines(s []byte, off, n int) int {
	for ; n > 0 && off < len(s); n-- {
		off = endOfLine(s, off)
	}
	return off
}

// LineEdits returns a minimal set of line-aligned TextEdits that turn
// before into after: what write_file sends to an editor instead of a
// whole-file replacement, so the user reviews only what changed.
// The common prefix and suffix are stripped first, which keeps the
// diff cheap when a large file changes in one place; slideReach lines
// of each are kept so that a change slides as in the echoed diff.
func LineEdits(before, after []byte) []Edit {
	if bytes.Equal(before, after) {
		return nil
	}
	p := commonPrefix(before, after)
	p = startOfLine(before, p) // the shared prefix ends at a line start in both
	s := commonSuffix(before[p:], after[p:])
	if s > 0 {
		// Start the shared suffix just after a newline inside it, so it
		// begins at a line start in both texts.
		tail := before[len(before)-s:]
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
			s -= i + 1
		} else {
			s = 0
		}
	}
	// The prefix and the suffix are the same bytes in both texts, so
	// moving their ends by whole lines keeps them so.
	p = backLines(before, p, slideReach)
	s = len(before) - forwardLines(before, len(before)-s, slideReach)
	return diffLines(string(before[p:len(before)-s]), string(after[p:len(after)-s])).textEdits(p)
}

// commonPrefix returns the length of the longest common prefix, comparing
// in blocks so that memcmp does the work on large files.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 4096
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest common suffix.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 4096
	i := 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// Apply returns base with edits applied, or an error if the edits
// are not sorted, overlap or fall outside base.
func Apply(base []byte, edits []Edit) ([]byte, error) {
	size := len(base)
	last := 0
	for i, e := range edits {
		if e.Start < last || e.End < e.Start || e.End > len(base) {
			return nil, fmt.Errorf("edit %d [%d,%d) is out of order or out of range (base %d bytes)", i, e.Start, e.End, len(base))
		}
		last = e.End
		size += len(e.NewText) - (e.End - e.Start)
	}
	// bytes.Join allocates without zeroing first, which matters when the
	// base is a 10 MB file and the edit a few bytes.
	parts := make([][]byte, 0, 2*len(edits)+2)
	pos := 0
	for _, e := range edits {
		parts = append(parts, base[pos:e.Start], []byte(e.NewText))
		pos = e.End
	}
	parts = append(parts, base[pos:], nil) // two parts at least: Join copies then
	out := bytes.Join(parts, nil)
	if len(out) != size {
		return nil, fmt.Errorf("edits produced %d bytes, expected %d", len(out), size)
	}
	return out, nil
}

// Produces reports whether edits are sorted, within base, and put
// their new text exactly where after has it, with after of the right
// length: the invariant every Change keeps. The untouched stretches are
// not compared byte by byte, which would cost a pass over a large file
// on every edit; the tests check them.
func Produces(base []byte, edits []Edit, after []byte) bool {
	pos, out := 0, 0
	for _, e := range edits {
		if e.Start < pos || e.End < e.Start || e.End > len(base) {
			return false
		}
		out += e.Start - pos
		if out+len(e.NewText) > len(after) || string(after[out:out+len(e.NewText)]) != e.NewText {
			return false
		}
		out += len(e.NewText)
		pos = e.End
	}
	return len(after)-out == len(base)-pos
}
