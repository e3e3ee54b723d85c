package search

import "bytes"

// literalFinder finds a literal by its rarest byte: bytes.IndexByte
// (SIMD in the runtime) jumps to each occurrence of the byte of the
// literal least likely to appear in source text, and only there is the
// whole literal compared. bytes.Index starts from the literal's first
// byte, often a common letter, and stops at every one of them. When the
// rare byte turns out to be common in a buffer, it gives up on it and
// uses bytes.Index for the rest.
type literalFinder struct {
	lit  []byte
	rare byte // lit[at]
	at   int
}

func newLiteralFinder(lit []byte) literalFinder {
	f := literalFinder{lit: lit}
	for i, c := range lit {
		if byteRank[c] < byteRank[f.rare] || i == 0 {
			f.rare, f.at = c, i
		}
	}
	return f
}

// index returns the offset of the first occurrence of the literal in b,
// or -1.
func (f *literalFinder) index(b []byte) int {
	n := len(f.lit)
	if n < 2 {
		return bytes.Index(b, f.lit)
	}
	misses := 0
	for pos := 0; pos+n <= len(b); {
		k := bytes.IndexByte(b[pos+f.at:len(b)-n+f.at+1], f.rare)
		if k < 0 {
			return -1
		}
		start := pos + k
		if bytes.Equal(b[start:start+n], f.lit) {
			return start
		}
		pos = start + 1
		// More than about one miss per 16 bytes scanned: the byte is not
		// rare here; bytes.Index does not degrade.
		if misses++; misses > 8 && misses*16 > pos {
			if i := bytes.Index(b[pos:], f.lit); i >= 0 {
				return pos + i
			}
			return -1
		}
	}
	return -1
}

// byteRank estimates how common each byte is in source code and text:
// higher is more common. The order is a rough one, most common first;
// bytes not listed (most upper-case letters, rare punctuation, control
// and non-ASCII bytes) rank lowest.
var byteRank = func() (r [256]uint8) {
	const common = " etaoinsrlc\n\tdhup.mf(g)y,_=;\"bw:vk/-0{}1*x2>[]<&'!#+3|4q5z8679j\\?%@$^~`"
	for i := 0; i < len(common); i++ {
		r[common[i]] = uint8(255 - i)
	}
	return r
}()
