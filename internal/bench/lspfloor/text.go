package main

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// text is a document kept as its lines, each with its newline. A
// keystroke rebuilds one line's string: the least work a server that
// keeps the text up to date does, without a structure of its own to
// maintain, so it is a fair floor in both CPU and memory.
type text struct {
	lines []string // never empty; the last line has no newline
}

func newText(s string) *text {
	return &text{lines: strings.SplitAfter(s, "\n")}
}

// apply replaces the range (nil: the whole document) with s. Positions
// past a line's end or past the last line clamp, as LSP clients expect;
// a range that ends before it starts is ignored.
func (t *text) apply(r *lspRange, s string) {
	if r == nil {
		t.lines = strings.SplitAfter(s, "\n")
		return
	}
	sl, so := t.offset(r.Start)
	el, eo := t.offset(r.End)
	if sl > el || sl == el && so > eo {
		return
	}
	merged := t.lines[sl][:so] + s + t.lines[el][eo:]
	if sl == el && !strings.Contains(s, "\n") {
		t.lines[sl] = merged // typing: one line's string
		return
	}
	repl := strings.SplitAfter(merged, "\n")
	if el < len(t.lines)-1 {
		// merged ends with the newline of line el, so the split's last
		// (empty) element is not a line of its own.
		repl = repl[:len(repl)-1]
	}
	t.lines = slices.Replace(t.lines, sl, el+1, repl...)
}

// offset maps an LSP position (UTF-16 code units) to a line and a byte
// offset in it.
func (t *text) offset(p position) (line, off int) {
	if p.Line >= len(t.lines) {
		last := len(t.lines) - 1
		return last, len(t.lines[last])
	}
	content := strings.TrimSuffix(t.lines[p.Line], "\n")
	units := 0
	for i, r := range content {
		if units >= p.Character {
			return p.Line, i
		}
		if r >= 0x10000 && r != utf8.RuneError {
			units += 2
		} else {
			units++
		}
	}
	return p.Line, len(content)
}
