package tools

import "fmt"

// findCodexHunk places a "*** Begin Patch" hunk, searching from line
// from on, as Codex's apply_patch does: each @@ line of the hunk is the
// first line after from (or the @@ line before it) that equals it, and
// the hunk's lines come after the last (or start at it: models often
// repeat it as context). With @@ lines the first match is taken (they were
// given to pick it); without, the match must be unique, as a unified
// hunk's. *** End of File puts the lines at the file's end. A hunk of
// only added lines goes right after its last @@ line, or at the end of
// the file without one (where Codex puts it).
func findCodexHunk(fl fileLines, ph patchHunk, ch codexHunk, from int) (at int, tolerant bool, err error) {
	for k, a := range ch.anchors {
		if k > 0 {
			from++
		}
		i := seekLine(fl.text, a, from)
		if i < 0 {
			return 0, false, fmt.Errorf("its @@ line %q is not in the file after line %d; an @@ line must be a line of the file (a func or class line) above the hunk, in order", a, from)
		}
		from = i
	}
	n := len(ph.old)
	switch {
	case n == 0 && len(ch.anchors) > 0 && !ch.eof:
		return from + 1, false, nil
	case n == 0:
		return len(fl.text), false, nil
	case ch.eof:
		at = len(fl.text) - n
		for _, eq := range []func(a, b string) bool{exact, loose} {
			if at >= from && matchAt(fl.text, ph.old, at, eq) {
				return at, !matchAt(fl.text, ph.old, at, exact), nil
			}
		}
		return 0, false, fmt.Errorf("it ends with *** End of File, but its context and removed lines are not the last %d lines of the file.\n%s", n, nearestText(fl, ph.old, from, at))
	case len(ch.anchors) > 0:
		for _, eq := range []func(a, b string) bool{exact, loose} {
			for l := from; l+n <= len(fl.text); l++ {
				if matchAt(fl.text, ph.old, l, eq) {
					return l, !matchAt(fl.text, ph.old, l, exact), nil
				}
			}
		}
		return 0, false, fmt.Errorf("its context and removed lines are not in the file after its @@ line (line %d).\n%s", from+1, nearestText(fl, ph.old, from, from))
	}
	return findHunk(fl, ph, from, 0)
}

// seekLine returns the first line at or after from equal to want, exactly
// or else loosely, or -1.
func seekLine(lines []string, want string, from int) int {
	for _, eq := range []func(a, b string) bool{exact, loose} {
		for i := max(from, 0); i < len(lines); i++ {
			if eq(lines[i], want) {
				return i
			}
		}
	}
	return -1
}
