package fake

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// The fake maps positions on its own, independently of the server's
// mapper, so that tests cross-check the two. Lines end at "\n"; a
// trailing "\r" belongs to the line ending, as in VS Code.

// Offset returns the byte offset of a UTF-16 position in text.
func Offset(text string, p protocol.Position) int {
	off := 0
	for i := uint32(0); i < p.Line; i++ {
		k := strings.IndexByte(text[off:], '\n')
		if k < 0 {
			return len(text)
		}
		off += k + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	line := strings.TrimSuffix(text[off:end], "\r")
	units := 0
	for i, r := range line {
		if units >= int(p.Character) {
			return off + i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return off + len(line)
}

// Position returns the UTF-16 position of byte offset off in text.
func Position(text string, off int) protocol.Position {
	before := text[:off]
	line := strings.Count(before, "\n")
	start := strings.LastIndexByte(before, '\n') + 1
	col := 0
	for _, r := range before[start:] {
		if r == utf8.RuneError {
			col++
			continue
		}
		col += len(utf16.Encode([]rune{r}))
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}
