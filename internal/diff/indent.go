package diff

import (
	"bytes"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// In Python and YAML indentation is structure: a block moved a column
// or two by a retyped text still parses, but nests differently. These
// find such shifts so that an edit's result can name them.

// Shift is a run of lines of the new text that kept their text
// but moved by cols columns (negative: left).
type Shift struct {
	First, Last int // 1-based lines of the new text
	From, To    int // the first line's indentation before and after
}

// IndentShifts finds, edit by edit, the lines whose text (without its
// indentation) is the same before and after but whose indentation moved
// by one or two columns. Lines pair up by a line diff of the texts
// without indentation, and in a replacement of as many lines by as many,
// in order.
func IndentShifts(base []byte, edits []Edit) []Shift {
	var out []Shift
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
			s.First += first
			s.Last += first
			out = append(out, s)
		}
		delta += strings.Count(newText, "\n") - strings.Count(oldText, "\n")
		i = j
	}
	return out
}

// shiftedLines pairs the lines of a and b and returns the runs of b
// (0-based) that moved by one or two columns, each run by one amount.
func shiftedLines(a, b []string) []Shift {
	strip := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimSpace(l)
		}
		return out
	}
	sa, sb := strip(a), strip(b)
	var out []Shift
	pair := func(i, j int) {
		if sa[i] == "" || sa[i] != sb[j] {
			return
		}
		from, to := lineIndent(a[i]), lineIndent(b[j])
		if d := max(to-from, from-to); d == 0 || d > 2 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Last == j-1 && out[n-1].To-out[n-1].From == to-from {
			out[n-1].Last = j
			return
		}
		out = append(out, Shift{First: j, Last: j, From: from, To: to})
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
