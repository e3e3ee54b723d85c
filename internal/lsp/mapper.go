package lsp

import (
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lspfeatures"
)

// This file converts between LSP positions and byte offsets of the
// editor's buffers (the content-based conversions are lspfeatures', which
// the language tools share). Inside cb-ls everything is bytes; UTF-16 (or
// the negotiated encoding) exists only at these edges. Lines end at "\n" (a "\r\n" pair counts as
// one line end, and a character past the line's end clamps to before the
// "\r"). A lone "\r" is not a line break here, unlike in the LSP
// specification: editors normalise to "\n" or "\r\n", and counting lone
// "\r" would cost every keystroke a second scan.

// units returns how many code units of enc the rune r of width size takes.
func units(r rune, size int, enc protocol.PositionEncodingKind) int {
	return lspfeatures.Units(r, size, enc)
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
	return lspfeatures.OffsetOf(content, p, enc)
}

// PositionOf returns the LSP position of byte offset off in content. An
// offset inside a rune is moved to the rune's start.
func PositionOf(content []byte, off int, enc protocol.PositionEncodingKind) protocol.Position {
	return lspfeatures.PositionOf(content, off, enc)
}

// RangeOf converts byte offsets [start, end) of content to an LSP range.
func RangeOf(content []byte, start, end int, enc protocol.PositionEncodingKind) protocol.Range {
	return protocol.Range{Start: PositionOf(content, start, enc), End: PositionOf(content, end, enc)}
}
