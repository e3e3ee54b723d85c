package lspfeatures

import (
	"bytes"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Positions follow the LSP layer's rules (internal/lsp/mapper.go): lines
// end at "\n", a "\r" before it belongs to the line ending, and a
// character past the end of its line clamps to the line's end.

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

// OffsetOf returns the byte offset of p in content.
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

// PositionOf returns the LSP position of byte offset off in content.
func PositionOf(content []byte, off int, enc protocol.PositionEncodingKind) protocol.Position {
	off = max(0, min(off, len(content)))
	lineStart := bytes.LastIndexByte(content[:off], '\n') + 1
	line := bytes.Count(content[:lineStart], []byte{'\n'})
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
