package tools

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// What the model reads of an edit that landed exactly as it wrote it:
// the file, +N -M and where the changed lines now are, not its own text
// again. History is resent on every later turn, so an echoed diff is
// paid for over and over; the line numbers are what the model cannot
// know on its own (to read_file them, or to aim its next edit). Where
// the landed text differs from what the model sent (merged over the
// user's typing, partly rejected, found by a loose match, changed by
// the editor as it landed) the result carries the diff instead.

// Bounds of a compact report.
const (
	maxSpansNamed   = 10  // line ranges listed per file
	maxContextSpans = 4   // changes shown with their neighbouring lines
	maxContextWidth = 160 // bytes of a neighbouring line shown
)

// landedHead is the first line of a file's report: "Edited calc.go
// (+1 -1)", "Created …", "Deleted …", "Moved OLD to NEW (+1 -1)".
func landedHead(c Change, d diff.Result) string {
	switch {
	case c.Moved != "" && c.Delete:
		return fmt.Sprintf("Deleted %s (moved to %s)", c.Path.Rel, c.Moved)
	case c.Moved != "":
		return fmt.Sprintf("Moved %s to %s (+%d -%d)", c.Moved, c.Path.Rel, d.Added, d.Removed)
	}
	return fmt.Sprintf("%s %s (+%d -%d)", landedVerb(c), c.Path.Rel, d.Added, d.Removed)
}

// landedVerb says what a change did to its file.
func landedVerb(c Change) string {
	switch {
	case c.Create:
		return "Created"
	case c.Delete:
		return "Deleted"
	}
	return "Edited"
}

// landedReport is one file's part of an edit's result. full gives the
// diff of what landed after the head (the text differs from what the
// model sent); otherwise the head names where the changed lines are,
// and, when context is set, the unchanged line before and after each
// change follow as read_file numbers them, so the model sees where its
// text went without reading it back. A created or deleted file is its
// head alone: the model wrote all of it, or none is left.
func landedReport(c Change, d diff.Result, full, context bool) string {
	head := landedHead(c, d)
	if c.Delete {
		return head + "\n"
	}
	if full {
		return head + "\n" + d.Unified
	}
	if c.Create && c.Moved == "" {
		return head + "\n"
	}
	var b strings.Builder
	b.WriteString(head)
	if where := spanList(d.Spans); where != "" {
		b.WriteString(": ")
		b.WriteString(where)
	}
	b.WriteByte('\n')
	if context {
		b.WriteString(neighbourLines(c.After, d.Spans))
	}
	return b.String()
}

// spanList names where each change now is in the new text: "lines
// 12–14, line 40, removed after line 51".
func spanList(spans []diff.Span) string {
	var parts []string
	for i, sp := range spans {
		if i == maxSpansNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(spans)-i))
			break
		}
		switch {
		case sp.NewCount == 0 && sp.New <= 1:
			parts = append(parts, "removed at the top")
		case sp.NewCount == 0:
			parts = append(parts, fmt.Sprintf("removed after line %d", sp.New-1))
		default:
			parts = append(parts, diff.LineSpan(sp.New, sp.NewLast()))
		}
	}
	return strings.Join(parts, ", ")
}

// neighbourLines shows the unchanged line before and after each of the
// first changes, numbered as read_file numbers them; a line shared by
// two changes is shown once.
func neighbourLines(content []byte, spans []diff.Span) string {
	var want []int // sorted, distinct
	for i, sp := range spans {
		if i == maxContextSpans {
			break
		}
		for _, n := range []int{sp.New - 1, sp.NewLast() + 1} {
			if n >= 1 && (len(want) == 0 || want[len(want)-1] < n) {
				want = append(want, n)
			}
		}
	}
	var b strings.Builder
	line, off := 1, 0
	for _, n := range want {
		for line < n && off < len(content) {
			i := bytes.IndexByte(content[off:], '\n')
			if i < 0 {
				off = len(content)
				break
			}
			off += i + 1
			line++
		}
		if line != n || off >= len(content) {
			break // past the end of the file
		}
		text := content[off:]
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		cut := ""
		if len(text) > maxContextWidth {
			text, cut = bytes.ToValidUTF8(text[:maxContextWidth], nil), "…"
		}
		fmt.Fprintf(&b, "%d\t%s%s\n", n, text, cut)
	}
	return b.String()
}
