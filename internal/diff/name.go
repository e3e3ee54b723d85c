package diff

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QuoteName returns a file name as it may be shown to a person: as it
// is when every character is printable, otherwise quoted with Go's
// escapes, as git quotes an unusual path ("a\x1b[2J\nb.txt"). A name is
// the agent's or a command's to choose: raw, an escape sequence in it
// would rewrite the terminal (clear the listing being reviewed) and a
// newline would forge a line of its own ("calc.go (changed)"). Control
// characters, format characters such as the bidirectional overrides,
// and invalid UTF-8 are escaped; a name that begins with a quote is
// quoted too, so a quoted name is never taken for a plain one.
func QuoteName(name string) string {
	if strings.HasPrefix(name, `"`) || !printable(name) {
		return strconv.Quote(name)
	}
	return name
}

// printable reports whether s is valid UTF-8 of printable characters
// (unicode.IsPrint: letters, marks, numbers, punctuation, symbols and
// the ASCII space).
func printable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}
