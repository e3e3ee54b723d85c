package diff

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// lineDiff is a line diff of two texts: their lines, each with its line
// ending, and which lines of each side are changed. Unchanged lines pair
// up in order, as in git's xdiff, which lets changed runs slide (see
// slideChanges) before hunks are cut.
type lineDiff struct {
	a, b       []string
	achg, bchg []bool
}

// diffLines diffs oldText and newText by lines and slides every run of
// changed lines to where git's indent heuristic puts it, so that a
// removed function ends at its own closing brace.
func diffLines(oldText, newText string) lineDiff {
	d := lineDiff{a: splitKeepEnds(oldText), b: splitKeepEnds(newText)}
	d.achg = make([]bool, len(d.a))
	d.bchg = make([]bool, len(d.b))
	for _, c := range lcs.DiffLines(d.a, d.b) {
		for i := c.Start; i < c.End; i++ {
			d.achg[i] = true
		}
		for j := c.ReplStart; j < c.ReplEnd; j++ {
			d.bchg[j] = true
		}
	}
	slideChanges(d.a, d.achg, d.bchg)
	slideChanges(d.b, d.bchg, d.achg)
	return d
}

// splitKeepEnds splits s after each newline; a last line without one is
// kept as it is.
func splitKeepEnds(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of a diff: ' ' (both sides), '-' or '+', and the
// 0-based line of each side where it stands.
type diffOp struct {
	kind   byte
	ai, bi int
	text   string
}

// ops lists the diff line by line; in each change the removed lines
// come before the added ones, as git prints them.
func (d lineDiff) ops() []diffOp {
	ops := make([]diffOp, 0, max(len(d.a), len(d.b)))
	i, j := 0, 0
	for i < len(d.a) || j < len(d.b) {
		switch {
		case i < len(d.a) && d.achg[i]:
			ops = append(ops, diffOp{'-', i, j, d.a[i]})
			i++
		case j < len(d.b) && d.bchg[j]:
			ops = append(ops, diffOp{'+', i, j, d.b[j]})
			j++
		default:
			ops = append(ops, diffOp{' ', i, j, d.a[i]})
			i++
			j++
		}
	}
	return ops
}

// diffHunk is one hunk: the 1-based line of each side where it starts
// and its lines.
type diffHunk struct {
	fromLine, toLine int
	ops              []diffOp
}

// hunks cuts the diff into hunks with context unchanged lines around
// each change; changes closer than twice that share a hunk.
func (d lineDiff) hunks(context int) []diffHunk {
	ops := d.ops()
	var hs []diffHunk
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-context)
		end := k // one past the last changed op of the hunk
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				break
			}
			end = next
		}
		stop := min(len(ops), end+context)
		hs = append(hs, diffHunk{fromLine: ops[start].ai + 1, toLine: ops[start].bi + 1, ops: ops[start:stop]})
		k = stop
	}
	return hs
}

// textEdits returns the diff as sorted TextEdits on the old text, one
// per change, at offsets shifted by base.
func (d lineDiff) textEdits(base int) []Edit {
	var out []Edit
	off := base
	for i, j := 0, 0; i < len(d.a) || j < len(d.b); {
		if (i == len(d.a) || !d.achg[i]) && (j == len(d.b) || !d.bchg[j]) {
			off += len(d.a[i])
			i++
			j++
			continue
		}
		e := Edit{Start: off}
		for ; i < len(d.a) && d.achg[i]; i++ {
			off += len(d.a[i])
		}
		var nb strings.Builder
		for ; j < len(d.b) && d.bchg[j]; j++ {
			nb.WriteString(d.b[j])
		}
		e.End, e.NewText = off, nb.String()
		out = append(out, e)
	}
	return out
}
