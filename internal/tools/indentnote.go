package tools

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// In Python and YAML indentation is structure: a block moved a column
// or two by a retyped new_string still parses, but nests differently,
// or fails far from the edit. A model rarely means such a shift, and
// the diff hides it among whole-line changes, so the result names it.

// indentLanguages are the file types whose indentation is structure.
var indentLanguages = map[string]string{
	".py": "Python", ".pyi": "Python", ".pyw": "Python",
	".yaml": "YAML", ".yml": "YAML",
}

// indentNoteTools are the tools whose new text the model typed.
var indentNoteTools = map[string]bool{
	"edit_file": true, "multi_edit": true, "apply_patch": true, "write_file": true, "replace_symbol": true,
}

// indentShift is a run of lines of the new text that kept their text
// but moved by cols columns (negative: left).
type indentShift struct {
	first, last int // 1-based lines of the new text
	from, to    int // the first line's indentation before and after
}

// indentNote says which lines of a Python or YAML change kept their text
// but moved one or two columns, or "" when none did (or the file is of
// another kind).
func indentNote(tool string, c Change) string {
	lang := indentLanguages[strings.ToLower(filepath.Ext(c.Path.Rel))]
	if lang == "" || !indentNoteTools[tool] || c.Delete {
		return ""
	}
	shifts := indentShifts(c.Base.Content, c.Edits)
	if len(shifts) == 0 {
		return ""
	}
	var parts []string
	for i, s := range shifts {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(shifts)-3))
			break
		}
		where := fmt.Sprintf("line %d", s.first)
		if s.last > s.first {
			where = fmt.Sprintf("lines %d–%d", s.first, s.last)
		}
		dir := "right"
		if s.to < s.from {
			dir = "left"
		}
		parts = append(parts, fmt.Sprintf("%s moved %d %s (%d → %d)", where, abs(s.to-s.from), "column"+plural(abs(s.to-s.from))+" "+dir, s.from, s.to))
	}
	return fmt.Sprintf("Indentation: in %s, %s, with the text unchanged. In %s indentation is structure: check that this is meant.",
		c.Path.Rel, strings.Join(parts, "; "), lang)
}

// indentShifts finds, edit by edit, the lines whose text (without its
// indentation) is the same before and after but whose indentation moved
// by one or two columns. Lines pair up by a line diff of the texts
// without indentation, and in a replacement of as many lines by as many,
// in order.
func indentShifts(base []byte, edits []TextEdit) []indentShift {
	var out []indentShift
	lineBase, scanned, delta := 0, 0, 0
	for i := 0; i < len(edits); {
		ws := startOfLine(base, edits[i].Start)
		we := endOfLine(base, edits[i].End)
		j := i + 1
		for j < len(edits) && startOfLine(base, edits[j].Start) < we {
			we = endOfLine(base, edits[j].End)
			j++
		}
		lineBase += bytes.Count(base[scanned:ws], nl)
		scanned = ws
		oldText := string(base[ws:we])
		newText := spliceWindow(base, ws, we, edits[i:j])
		first := lineBase + delta + 1 // the window's first line in the new text
		for _, s := range shiftedLines(splitKeepEnds(oldText), splitKeepEnds(newText)) {
			s.first += first
			s.last += first
			out = append(out, s)
		}
		delta += strings.Count(newText, "\n") - strings.Count(oldText, "\n")
		i = j
	}
	return out
}

// shiftedLines pairs the lines of a and b and returns the runs of b
// (0-based) that moved by one or two columns, each run by one amount.
func shiftedLines(a, b []string) []indentShift {
	strip := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimSpace(l)
		}
		return out
	}
	sa, sb := strip(a), strip(b)
	var out []indentShift
	pair := func(i, j int) {
		if sa[i] == "" || sa[i] != sb[j] {
			return
		}
		from, to := lineIndent(a[i]), lineIndent(b[j])
		if d := abs(to - from); d == 0 || d > 2 {
			return
		}
		if n := len(out); n > 0 && out[n-1].last == j-1 && out[n-1].to-out[n-1].from == to-from {
			out[n-1].last = j
			return
		}
		out = append(out, indentShift{first: j, last: j, from: from, to: to})
	}
	i, j := 0, 0
	// Between the diff's changes the lines are equal, in step.
	equalUntil := func(ai int) {
		for ; i < ai; i, j = i+1, j+1 {
			pair(i, j)
		}
	}
	for _, d := range lcs.DiffLines(sa, sb) {
		equalUntil(d.Start)
		if d.End-d.Start == d.ReplEnd-d.ReplStart {
			for k := 0; k < d.End-d.Start; k++ {
				pair(d.Start+k, d.ReplStart+k)
			}
		}
		i, j = d.End, d.ReplEnd
	}
	equalUntil(len(sa))
	return out
}
