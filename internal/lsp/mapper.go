package lsp

import (
	"bytes"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// This file is the one place that converts between LSP positions and byte
// offsets. Inside cb-ls everything is bytes; UTF-16 (or the negotiated
// encoding) exists only here. Lines end at "\n" (a "\r\n" pair counts as
// one line end, and a character past the line's end clamps to before the
// "\r"). A lone "\r" is not a line break here, unlike in the LSP
// specification: editors normalise to "\n" or "\r\n", and counting lone
// "\r" would cost every keystroke a second scan.

// units returns how many code units of enc the rune r of width size takes.
func units(r rune, size int, enc protocol.PositionEncodingKind) int {
	switch enc {
	case protocol.PositionEncodingKindUTF8:
		return size
	case protocol.PositionEncodingKindUTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Offset returns the byte offset of p in t. A line past the end maps to
// the end of the text, a character past the end of its line to the line's
// end, and a character inside a multi-unit rune to that rune's start.
func (t *Text) Offset(p protocol.Position, enc protocol.PositionEncodingKind) int {
	off, ci, inner, ok := t.lineStart(int(p.Line))
	if !ok {
		return t.size
	}
	want := int(p.Character)
	for ; ci < len(t.chunks); ci, inner = ci+1, 0 {
		b := t.chunks[ci].b
		for inner < len(b) {
			c := b[inner]
			if c == '\n' || (c == '\r' && t.nextIsNL(ci, inner)) {
				return off
			}
			if want <= 0 {
				return off
			}
			r, size := rune(c), 1
			if c >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(b[inner:])
			}
			u := units(r, size, enc)
			if u > want {
				return off
			}
			want -= u
			off += size
			inner += size
		}
	}
	return off
}

// nextIsNL reports whether the byte after (ci, inner) is '\n'.
func (t *Text) nextIsNL(ci, inner int) bool {
	if b := t.chunks[ci].b; inner+1 < len(b) {
		return b[inner+1] == '\n'
	}
	for ci++; ci < len(t.chunks); ci++ {
		if len(t.chunks[ci].b) > 0 {
			return t.chunks[ci].b[0] == '\n'
		}
	}
	return false
}

// OffsetOf returns the byte offset of p in content, with the same rules
// as Text.Offset.
func OffsetOf(content []byte, p protocol.Position, enc protocol.PositionEncodingKind) int {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		k := bytes.IndexByte(content[off:], '\n')
		if k < 0 {
			return len(content)
		}
		off += k + 1
	}
	want := int(p.Character)
	for off < len(content) && want > 0 {
		c := content[off]
		if c == '\n' || (c == '\r' && off+1 < len(content) && content[off+1] == '\n') {
			break
		}
		r, size := utf8.DecodeRune(content[off:])
		u := units(r, size, enc)
		if u > want {
			break
		}
		want -= u
		off += size
	}
	return off
}

// PositionOf returns the LSP position of byte offset off in content. An
// offset inside a rune is moved to the rune's start.
func PositionOf(content []byte, off int, enc protocol.PositionEncodingKind) protocol.Position {
	off = max(0, min(off, len(content)))
	lineStart := bytes.LastIndexByte(content[:off], '\n') + 1
	line := bytes.Count(content[:lineStart], nl)
	col := 0
	for i := lineStart; i < off; {
		r, size := utf8.DecodeRune(content[i:])
		if i+size > off {
			break
		}
		col += units(r, size, enc)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// RangeOf converts byte offsets [start, end) of content to an LSP range.
func RangeOf(content []byte, start, end int, enc protocol.PositionEncodingKind) protocol.Range {
	return protocol.Range{Start: PositionOf(content, start, enc), End: PositionOf(content, end, enc)}
}
