package lsp

import "unicode/utf8"

// slice returns a copy of the bytes [start, end), moved inward to rune
// boundaries. It walks the chunk headers without the finger, so it may
// run under the buffer's read lock: a completion reads a few KB around
// the cursor of a 10 MB document without copying it.
func (t *Text) slice(start, end int) []byte {
	start, end = max(0, start), min(end, t.size)
	if start >= end {
		return nil
	}
	out := make([]byte, 0, end-start)
	off := 0
	for _, c := range t.chunks {
		cs, ce := off, off+len(c.b)
		off = ce
		if ce <= start {
			continue
		}
		if cs >= end {
			break
		}
		out = append(out, c.b[max(start, cs)-cs:min(end, ce)-cs]...)
	}
	i := 0
	for i < len(out) && i < utf8.UTFMax && !utf8.RuneStart(out[i]) {
		i++
	}
	out = out[i:]
	if n := len(out); n > 0 && !utf8.FullRune(out[lastRuneStart(out):]) {
		out = out[:lastRuneStart(out)]
	}
	return out
}

func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}
