package lsp

import (
	"bytes"
	"unicode/utf8"
)

// Chunk sizes of Text. A keystroke touches one chunk (a memmove of a few
// KB at most) and finding a chunk scans a compact slice of headers, so a
// one-character edit costs about the same in a 10 MB document as in a
// small one; see BenchmarkDidChange.
const (
	chunkTarget = 8 << 10
	chunkMax    = 2 * chunkTarget
)

// Text is a mutable document body stored as a sequence of chunks, each
// ending on a UTF-8 rune boundary, with its newline count cached. It is
// not safe for concurrent use; Buffer guards it.
type Text struct {
	chunks []chunk
	size   int
	lines  int // number of '\n' bytes
	// The finger remembers the last chunk looked up: where it starts and
	// how many newlines come before it. Edits cluster (typing), so most
	// lookups start at the finger and move zero or one chunk, which keeps
	// a keystroke's cost independent of the document's size.
	finger finger
}

type finger struct {
	ci    int // chunk index; 0 with off 0 and lines 0 is always valid
	off   int // byte offset where chunk ci starts
	lines int // newlines before chunk ci
}

type chunk struct {
	b  []byte
	nl int
	// nlpos holds the offsets of the chunk's newlines, built on the first
	// line lookup and shifted in place by edits that add or remove no
	// newline (typing), so finding a line inside a chunk is one index
	// instead of a scan. Only chunks that were looked up pay for it.
	nlpos []int32
	index bool
}

// lineIndex returns nlpos, building it if needed.
func (c *chunk) lineIndex() []int32 {
	if !c.index {
		c.nlpos = c.nlpos[:0]
		for p := 0; ; {
			k := bytes.IndexByte(c.b[p:], '\n')
			if k < 0 {
				break
			}
			c.nlpos = append(c.nlpos, int32(p+k))
			p += k + 1
		}
		c.index = true
	}
	return c.nlpos
}

// NewText returns a Text holding a copy of b.
func NewText[T string | []byte](b T) *Text {
	t := &Text{}
	t.chunks = appendChunks(nil, b)
	t.size = len(b)
	for _, c := range t.chunks {
		t.lines += c.nl
	}
	return t
}

// appendChunks splits b into chunks of about chunkTarget bytes, each an
// exact-size copy, cut on rune boundaries. It takes a string too, so a
// didOpen's text is copied once, into the chunks, and not first into a
// []byte of the document's size.
func appendChunks[T string | []byte](dst []chunk, b T) []chunk {
	for len(b) > 0 {
		n := min(len(b), chunkTarget)
		if n < len(b) {
			n = runeCut(b, n)
		}
		piece := append([]byte(nil), b[:n]...)
		dst = append(dst, chunk{b: piece, nl: bytes.Count(piece, nl)})
		b = b[n:]
	}
	return dst
}

// runeCut moves n back to the start of the rune it falls in (at most 3
// bytes); invalid UTF-8 is cut where it stands.
func runeCut[T string | []byte](b T, n int) int {
	for i := 0; i < utf8.UTFMax-1 && n > 1 && !utf8.RuneStart(b[n]); i++ {
		n--
	}
	return n
}

var nl = []byte{'\n'}

// Len returns the size in bytes.
func (t *Text) Len() int { return t.size }

// Lines returns the number of newline characters.
func (t *Text) Lines() int { return t.lines }

// Bytes returns a copy of the whole content.
func (t *Text) Bytes() []byte {
	out := make([]byte, 0, t.size)
	for _, c := range t.chunks {
		out = append(out, c.b...)
	}
	return out
}

// Equal reports whether the content is exactly b, without copying.
func (t *Text) Equal(b []byte) bool {
	if len(b) != t.size {
		return false
	}
	for _, c := range t.chunks {
		if !bytes.Equal(c.b, b[:len(c.b)]) {
			return false
		}
		b = b[len(c.b):]
	}
	return true
}

// locate returns the chunk holding byte offset off and the offset inside
// it. An offset at a chunk boundary belongs to the earlier chunk, so an
// append lands in the chunk that already holds the preceding text. It
// walks from the finger and leaves the finger on the result.
func (t *Text) locate(off int) (ci, inner int) {
	f := &t.finger
	for f.ci > 0 && off <= f.off {
		f.ci--
		f.off -= len(t.chunks[f.ci].b)
		f.lines -= t.chunks[f.ci].nl
	}
	for f.ci < len(t.chunks) && off > f.off+len(t.chunks[f.ci].b) {
		f.off += len(t.chunks[f.ci].b)
		f.lines += t.chunks[f.ci].nl
		f.ci++
	}
	if f.ci == len(t.chunks) {
		t.finger = finger{}
		return len(t.chunks), 0
	}
	return f.ci, off - f.off
}

// Replace replaces the bytes [start, end) with s. Offsets must satisfy
// 0 <= start <= end <= Len().
func (t *Text) Replace(start, end int, s string) {
	if len(t.chunks) == 0 {
		t.chunks = appendChunks(nil, s)
		t.size, t.lines = len(s), strCount(s)
		return
	}
	ci, si := t.locate(start)
	cj, ej := t.locate(end)
	if ci == len(t.chunks) { // start == size: append to the last chunk
		ci, si = len(t.chunks)-1, len(t.chunks[len(t.chunks)-1].b)
	}
	if cj == len(t.chunks) {
		cj, ej = len(t.chunks)-1, len(t.chunks[len(t.chunks)-1].b)
	}
	t.size += len(s) - (end - start)
	t.lines += strCount(s)
	// Only chunk ci keeps its start; the finger is moved there, and reset
	// below when chunks are added or removed.
	t.locate(start)
	if ci == cj {
		c := &t.chunks[ci]
		removedNL := bytes.Count(c.b[si:ej], nl)
		t.lines -= removedNL
		newLen := len(c.b) + len(s) - (ej - si)
		if newLen <= chunkMax {
			added := strCount(s)
			c.nl += added - removedNL
			if c.index && added == 0 && removedNL == 0 {
				delta := int32(len(s) - (ej - si))
				for k := len(c.nlpos) - 1; k >= 0 && c.nlpos[k] >= int32(ej); k-- {
					c.nlpos[k] += delta
				}
			} else {
				c.index = false
			}
			c.b = splice(c.b, si, ej, s, newLen)
			if len(c.b) == 0 {
				t.chunks = append(t.chunks[:ci], t.chunks[ci+1:]...)
				t.finger = finger{}
			}
			return
		}
	} else {
		t.lines -= bytes.Count(t.chunks[ci].b[si:], nl)
		for k := ci + 1; k < cj; k++ {
			t.lines -= t.chunks[k].nl
		}
		t.lines -= bytes.Count(t.chunks[cj].b[:ej], nl)
	}
	// General case: rebuild the affected chunks from prefix + s + suffix.
	merged := make([]byte, 0, si+len(s)+len(t.chunks[cj].b)-ej)
	merged = append(merged, t.chunks[ci].b[:si]...)
	merged = append(merged, s...)
	merged = append(merged, t.chunks[cj].b[ej:]...)
	repl := appendChunks(nil, merged)
	t.chunks = append(t.chunks[:ci], append(repl, t.chunks[cj+1:]...)...)
	t.finger = finger{}
}

// splice returns b with b[i:j] replaced by s, reusing b's array when it
// has room and growing it with 1/8 slack otherwise.
func splice(b []byte, i, j int, s string, newLen int) []byte {
	if newLen <= cap(b) {
		old := len(b)
		b = b[:max(old, newLen)]
		copy(b[i+len(s):], b[j:old])
		copy(b[i:], s)
		return b[:newLen]
	}
	nb := make([]byte, newLen, newLen+newLen/8)
	copy(nb, b[:i])
	copy(nb[i:], s)
	copy(nb[i+len(s):], b[j:])
	return nb
}

func strCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}

// lineStart returns the byte offset where line (0-based) starts, and the
// chunk position there. ok is false when the text has fewer lines. It
// walks from the finger and leaves the finger on the chunk it used.
func (t *Text) lineStart(line int) (off, ci, inner int, ok bool) {
	if line == 0 {
		return 0, 0, 0, true
	}
	if line > t.lines {
		return t.size, len(t.chunks), 0, false
	}
	// Find the chunk holding the line-th newline: the first chunk with
	// lines-before < line <= lines-before + nl.
	f := &t.finger
	for f.ci > 0 && line <= f.lines {
		f.ci--
		f.off -= len(t.chunks[f.ci].b)
		f.lines -= t.chunks[f.ci].nl
	}
	for f.ci < len(t.chunks) && line > f.lines+t.chunks[f.ci].nl {
		f.off += len(t.chunks[f.ci].b)
		f.lines += t.chunks[f.ci].nl
		f.ci++
	}
	if f.ci == len(t.chunks) {
		t.finger = finger{}
		return t.size, len(t.chunks), 0, false
	}
	c := &t.chunks[f.ci]
	p := int(c.lineIndex()[line-f.lines-1]) + 1
	return f.off + p, f.ci, p, true
}
