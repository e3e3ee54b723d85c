package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// lineMatcher finds the lines of a buffer that match a pattern. Lines
// are matched one at a time in meaning (a match never spans a newline,
// as in ripgrep), but the buffer is searched as a whole: a required
// literal is found with bytes.Index (SIMD in the runtime) and only the
// lines that hold it are given to the regexp.
type lineMatcher struct {
	re *regexp.Regexp
	// lit must occur in every matching line; nil if none was found.
	lit []byte
	// find finds lit.
	find literalFinder
	// litOnly: a line matches iff it contains lit (no regexp needed).
	litOnly bool
	// foldLit, used when lit is nil, is an ASCII lower-case string that
	// every matching line contains once its ASCII letters are lowered:
	// the prefilter of case-insensitive patterns.
	foldLit []byte
}

// newLineMatcher compiles pattern (Go RE2 syntax unless literal).
func newLineMatcher(pattern string, literal, caseInsensitive bool) (*lineMatcher, error) {
	if pattern == "" {
		return nil, fmt.Errorf("pattern is empty")
	}
	if literal {
		if strings.ContainsAny(pattern, "\n") {
			return nil, fmt.Errorf("pattern contains a newline; grep matches one line at a time")
		}
		if !caseInsensitive {
			return &lineMatcher{lit: []byte(pattern), litOnly: true, find: newLiteralFinder([]byte(pattern))}, nil
		}
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := "(?m)"
	if caseInsensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v (Go RE2 syntax; set literal=true to search for the text as is)", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	m := &lineMatcher{re: re}
	if parsed, err := syntax.Parse(flags+pattern, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		if lit, ok := pureLiteral(parsed); ok && !strings.Contains(lit, "\n") {
			m.lit, m.litOnly = []byte(lit), true
		} else if l := requiredLiteral(parsed); l != "" && !strings.Contains(l, "\n") {
			m.lit = []byte(l)
		} else if l := foldSafe(requiredFoldLiteral(parsed)); len(l) >= 2 {
			m.foldLit = []byte(l)
		}
	}
	if m.lit != nil {
		m.find = newLiteralFinder(m.lit)
	}
	return m, nil
}

// pureLiteral reports whether re matches exactly one case-sensitive
// string, ignoring flags that do not change that.
func pureLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return "", false
		}
		return string(re.Rune), true
	case syntax.OpCapture:
		return pureLiteral(re.Sub[0])
	case syntax.OpConcat:
		var b strings.Builder
		for _, s := range re.Sub {
			l, ok := pureLiteral(s)
			if !ok {
				return "", false
			}
			b.WriteString(l)
		}
		return b.String(), true
	}
	return "", false
}

// requiredLiteral returns the longest case-sensitive string that every
// match of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, s := range re.Sub {
			if l, ok := pureLiteral(s); ok {
				run += l // adjacent literals form one longer literal
			} else {
				run = ""
				if l := requiredLiteral(s); len(l) > len(best) {
					best = l
				}
			}
			if len(run) > len(best) {
				best = run
			}
		}
		return best
	}
	return ""
}

// requiredFoldLiteral is requiredLiteral for case-insensitive
// patterns: literals count whatever their case flag, and the result is
// lowered (ASCII), to be found in an ASCII-lowered copy of the text.
func requiredFoldLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return asciiLower(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return requiredFoldLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredFoldLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, s := range re.Sub {
			if s.Op == syntax.OpLiteral {
				run += asciiLower(string(s.Rune))
			} else {
				run = ""
				if l := requiredFoldLiteral(s); len(l) > len(best) {
					best = l
				}
			}
			if len(run) > len(best) {
				best = run
			}
		}
		return best
	}
	return ""
}

// foldSafe returns the longest run of l whose bytes are ASCII and whose
// case folding stays within ASCII. Unicode folds k to U+212A (Kelvin)
// and s to U+017F (long s): a line could match through those while its
// ASCII-lowered text lacks the literal, so they end a run.
func foldSafe(l string) string {
	best, start := "", 0
	for i := 0; i <= len(l); i++ {
		if i == len(l) || l[i] >= 0x80 || l[i] == 'k' || l[i] == 's' || l[i] == '\n' {
			if i-start > len(best) {
				best = l[start:i]
			}
			start = i + 1
		}
	}
	return best
}

func asciiLower(s string) string {
	b := []byte(s)
	lowerASCII(b, b)
	return string(b)
}

// lowerASCII writes src with ASCII letters lowered to dst (same length).
func lowerASCII(dst, src []byte) {
	for i, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// each calls fn for every matching line of buf, in order, with the
// offsets of the line's start and end (the end excludes the newline).
// fn returns false to stop.
// scratch, if not nil, is reused for the lowered copy a case-insensitive
// prefilter needs.
func (m *lineMatcher) each(buf []byte, scratch *[]byte, fn func(start, end int) bool) {
	var lowered []byte
	if m.lit == nil && m.foldLit != nil {
		if scratch == nil {
			scratch = new([]byte)
		}
		if cap(*scratch) < len(buf) {
			*scratch = make([]byte, len(buf)+len(buf)/8)
		}
		lowered = (*scratch)[:len(buf)]
		lowerASCII(lowered, buf)
	}
	pos := 0
	for pos <= len(buf) {
		var cand int  // an offset inside the next candidate line
		candEnd := -1 // end of a regexp match found in the buffer
		switch {
		case m.lit != nil:
			i := m.find.index(buf[pos:])
			if i < 0 {
				return
			}
			cand = pos + i
		case lowered != nil:
			i := bytes.Index(lowered[pos:], m.foldLit)
			if i < 0 {
				return
			}
			cand = pos + i
		default:
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				return
			}
			cand, candEnd = pos+loc[0], pos+loc[1]
			if cand == len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
				return // an empty match after the final newline is no line
			}
		}
		start := bytes.LastIndexByte(buf[pos:cand], '\n') + 1 + pos
		end := bytes.IndexByte(buf[cand:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += cand
		}
		// A buffer match inside the line is a line match (pos is always a
		// line start, so ^ and \b see the same context); one that spans
		// a newline must be confirmed on the line alone.
		if m.litOnly || (candEnd >= 0 && candEnd <= end) || m.re.Match(buf[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// index returns where the first match in line (one line, no newline)
// starts and ends, or -1, -1.
func (m *lineMatcher) index(line []byte) (int, int) {
	if m.litOnly {
		if i := m.find.index(line); i >= 0 {
			return i, i + len(m.lit)
		}
		return -1, -1
	}
	if loc := m.re.FindIndex(line); loc != nil {
		return loc[0], loc[1]
	}
	return -1, -1
}
