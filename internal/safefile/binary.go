package safefile

import (
	"bytes"
	"unicode/utf8"
)

// binarySniffLen is how much of a file decides whether it is text, the
// same window git and ripgrep look at.
const binarySniffLen = 8 << 10

// LooksBinary reports whether content is not text: a NUL byte in the
// first 8 KB, or a sample dominated by invalid UTF-8 and control bytes.
// A few stray Latin-1 bytes in a text file do not make it binary.
func LooksBinary(content []byte) bool {
	sample := content
	if len(sample) > binarySniffLen {
		sample = sample[:binarySniffLen]
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	bad, n := 0, 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size <= 1 {
			// A rune cut by the sample's end is not evidence.
			if len(sample) < len(content) && len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:]) {
				break
			}
			bad++
		} else if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b {
			bad++
		}
		n++
		i += size
	}
	// Nearly a third suspicious: no editor would show it as text either,
	// while Latin-1 prose stays well below.
	return n > 0 && bad*10 > n*3
}

// HasNUL reports whether content holds a NUL byte, git's and ripgrep's
// test for a binary file when searching.
func HasNUL(content []byte) bool {
	return bytes.IndexByte(content, 0) >= 0
}
