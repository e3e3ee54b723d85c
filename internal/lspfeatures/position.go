package lspfeatures

import (
	"bytes"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// This file converts between LSP positions and byte offsets for every
// part of cb-ls (the server's own buffers in internal/lsp use it too).
// Lines end at "\n" (a "\r\n" pair counts as one line end, and a
// character past the line's end clamps to before the "\r"). A lone "\r"
// is not a line break here, unlike in the LSP specification: editors
// normalise to "\n" or "\r\n".

// Units returns how many code units of enc the rune r of width size takes.
func Units(r rune, size int, enc protocol.PositionEncodingKind) int {
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
		u := Units(r, size, enc)
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
		col += Units(r, size, enc)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}
