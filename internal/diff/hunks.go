package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// A hunk is one Edit of a Change: the unit a reviewer accepts or
// rejects. The editor receives each hunk as its own annotated edit, and
// VS Code's Refactor Preview (or the Neovim plugin's review window) lets
// the user keep some and drop others; these functions find out which
// hunks are in the buffer afterwards and describe them to the model.

// HunkLines returns the 1-based lines of base that edit e covers: the
// line it starts on and the line it ends on (the same for a pure
// insertion or a one-line change). An edit that ends at the start of a
// line does not cover that line.
func HunkLines(base []byte, e Edit) (first, last int) {
	first = 1 + bytes.Count(base[:e.Start], nl)
	last = first + bytes.Count(base[e.Start:e.End], nl)
	if e.End > e.Start && (e.End == len(base) || base[e.End-1] == '\n') && bytes.HasSuffix(base[e.Start:e.End], nl) {
		last--
	}
	return first, max(first, last)
}

// HunkLabel is how a hunk is named to the user and the model:
// "calc.go: lines 40–44" or "calc.go: line 7".
func HunkLabel(rel string, base []byte, e Edit) string {
	return rel + ": " + HunkWhere(base, e)
}

// HunkWhere names the lines of base that e replaces: "lines 40–44".
func HunkWhere(base []byte, e Edit) string {
	return LineSpan(HunkLines(base, e))
}

// LineSpan names the 1-based lines first to last as the user and the
// model read them everywhere: "line 7", or "lines 40–44".
func LineSpan(first, last int) string {
	if last <= first {
		return fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("lines %d–%d", first, last)
}

// HunkSummary describes what a hunk does in a few words, for the
// model's answer: its lines and the first changed line on each side.
func HunkSummary(base []byte, e Edit) string {
	old := firstLine(string(base[e.Start:e.End]))
	repl := firstLine(e.NewText)
	var what string
	switch {
	case old == "" && repl == "":
		what = "a blank-line change"
	case old == "":
		what = fmt.Sprintf("insert %q", repl)
	case repl == "":
		what = fmt.Sprintf("delete %q", old)
	default:
		what = fmt.Sprintf("%q → %q", old, repl)
	}
	return HunkWhere(base, e) + ": " + what
}

// firstLine returns the first non-blank line of s, trimmed and cut to
// 60 bytes.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return cut(l, 60)
		}
	}
	return ""
}

// Landed works out which of edits (sorted, non-overlapping, against
// base) are in content, for an editor that may have applied only some
// of them. It first looks for an exact decomposition: content is base
// with a subset of the edits applied and nothing else changed. Failing
// that (the user also typed, or the editor merged the edits with typing),
// each edit counts as landed when its new text stands in content between
// the text that surrounds it in after, as far as the neighbouring edits.
// exact reports which of the two answered.
func Landed(base []byte, edits []Edit, after, content []byte) (landed []bool, exact bool) {
	if landed, ok := decompose(base, edits, content); ok {
		return landed, true
	}
	landed = make([]bool, len(edits))
	starts := make([]int, len(edits)) // where each new text starts in after
	shift := 0
	for i, e := range edits {
		starts[i] = e.Start + shift
		shift += len(e.NewText) - (e.End - e.Start)
	}
	for i, e := range edits {
		start, end := starts[i], starts[i]+len(e.NewText)
		lo, hi := max(0, start-landContext), min(len(after), end+landContext)
		// Context stops at the neighbouring edits: they may have been
		// rejected, and then their new text is not in content.
		if i > 0 {
			lo = max(lo, starts[i-1]+len(edits[i-1].NewText))
		}
		if i+1 < len(edits) {
			hi = min(hi, starts[i+1])
		}
		landed[i] = lo < hi && bytes.Contains(content, after[lo:hi])
	}
	return landed, false
}

// landContext is how much of the text around each edit must be found
// with it for Landed to count it as made amid other changes.
const landContext = 24

// decompose looks for the subset of edits whose application to base
// gives exactly content. It tries "applied" before "not applied" at each
// edit and remembers dead ends, so it costs O(len(edits)) comparisons of
// the edits' texts in practice.
func decompose(base []byte, edits []Edit, content []byte) ([]bool, bool) {
	type state struct{ i, pos int }
	dead := map[state]bool{}
	choice := make([]bool, len(edits))
	var walk func(i, pos int) bool
	walk = func(i, pos int) bool {
		gapStart := 0
		if i > 0 {
			gapStart = edits[i-1].End
		}
		if i == len(edits) {
			return bytes.Equal(content[pos:], base[gapStart:])
		}
		st := state{i, pos}
		if dead[st] {
			return false
		}
		e := edits[i]
		gap := base[gapStart:e.Start]
		if !bytes.HasPrefix(content[pos:], gap) {
			dead[st] = true
			return false
		}
		p := pos + len(gap)
		if bytes.HasPrefix(content[p:], []byte(e.NewText)) && walk(i+1, p+len(e.NewText)) {
			choice[i] = true
			return true
		}
		if bytes.HasPrefix(content[p:], base[e.Start:e.End]) && walk(i+1, p+e.End-e.Start) {
			choice[i] = false
			return true
		}
		dead[st] = true
		return false
	}
	if !walk(0, 0) {
		return nil, false
	}
	return choice, true
}

// Without returns edits without the rejected indices.
func Without(edits []Edit, rejected []int) []Edit {
	out := make([]Edit, 0, len(edits))
	for i, e := range edits {
		if !slices.Contains(rejected, i) {
			out = append(out, e)
		}
	}
	return out
}

// cut shortens s to n bytes, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
