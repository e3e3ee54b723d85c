package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// notFoundHint explains, after notFoundMessage, where the text closest
// to old is and how it differs, so that the model's next attempt copies
// what the file really holds. It never picks a match itself.
func notFoundHint(content []byte, old string, lineNo func(int) int) string {
	if looksNumbered(old) {
		return "\nold_string seems to include the line numbers that read_file shows. Leave out the number and the tab at the start of each line."
	}
	lines := splitLinesNoCR(string(content))
	olds := splitLinesNoCR(old)
	start, votes, want := closestRegion(lines, olds)
	if votes == 0 {
		return "\nNo similar text was found. The file may have changed: read it again and copy old_string from its current content."
	}
	end := min(start+len(olds), len(lines))
	region := strings.Join(lines[start:end], "\n")
	if strings.HasSuffix(old, "\n") {
		region += "\n" // the region's last line ends in a newline in the file too
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nThe closest text is at %s", diff.LineSpan(lineNo(start+1), lineNo(end)))
	if votes < want {
		fmt.Fprintf(&b, " (only %d of %d lines are similar)", votes, want)
	}
	if why := differences(region, strings.ReplaceAll(old, "\r\n", "\n")); why != "" {
		b.WriteString("; it differs from old_string in ")
		b.WriteString(why)
	} else if l, fileLine, oldLine, ok := firstDifferentLine(lines[start:end], olds); ok {
		fmt.Fprintf(&b, "; line %d differs.\nThe file has:    %q\nold_string has:  %q", lineNo(start+1+l), clip(fileLine, 200), clip(oldLine, 200))
	}
	b.WriteString(".\nThe file there, as read_file shows it:\n")
	const show = 20
	for i := start; i < end && i < start+show; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", lineNo(i+1), clip(lines[i], 300))
	}
	if end-start > show {
		fmt.Fprintf(&b, "(%d more lines)\n", end-start-show)
	}
	b.WriteString("Copy old_string exactly from the file (without the line numbers) and try again.")
	return b.String()
}

var numberedLine = regexp.MustCompile(`^ *\d+\t`)

// looksNumbered reports whether every non-blank line of s starts with a
// read_file line-number prefix.
func looksNumbered(s string) bool {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !numberedLine.MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
}

func splitLinesNoCR(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// looseKey is a line with whitespace removed, quotes made alike and
// letters lowered: two lines with the same key are "similar".
func looseKey(s string) string { return string(appendLooseKey(nil, s)) }

// appendLooseKey appends s's loose key to dst; ASCII, nearly all of
// source code, takes a fast path without decoding runes.
func appendLooseKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ', c == '\t', c == '\n', c == '\r', c == '\v', c == '\f':
			case 'A' <= c && c <= 'Z':
				dst = append(dst, c+'a'-'A')
			case c == '\'', c == '`':
				dst = append(dst, '"')
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !unicode.IsSpace(r) {
			dst = utf8.AppendRune(dst, unicode.ToLower(straightQuote(r)))
		}
	}
	return dst
}

// closestRegion finds the start of the window of len(olds) lines of
// lines that has the most lines similar to olds. The first and last old
// lines may be partial lines (old_string need not start or end at a
// line boundary), so they are matched as suffix and prefix.
func closestRegion(lines, olds []string) (start, votes, want int) {
	keys := make([]string, len(olds))
	byKey := map[string][]int{}
	for i, l := range olds {
		keys[i] = looseKey(l)
		if keys[i] == "" {
			continue
		}
		want++
		if i > 0 && i < len(olds)-1 {
			byKey[keys[i]] = append(byKey[keys[i]], i)
		}
	}
	count := map[int]int{}
	first, last := []byte(keys[0]), []byte(keys[len(keys)-1])
	var k []byte // reused: the file may have a hundred thousand lines
	for n, l := range lines {
		k = appendLooseKey(k[:0], l)
		if len(k) == 0 {
			continue
		}
		for _, i := range byKey[string(k)] { // no allocation for the lookup
			count[n-i]++
		}
		switch {
		case len(olds) == 1:
			if bytes.Contains(k, first) {
				count[n]++
			}
		default:
			if len(first) > 0 && bytes.HasSuffix(k, first) {
				count[n]++
			}
			if len(last) > 0 && bytes.HasPrefix(k, last) {
				count[n-len(olds)+1]++
			}
		}
	}
	start = -1
	for s, c := range count {
		if s < 0 || s >= len(lines) {
			continue
		}
		if c > votes || c == votes && s < start {
			start, votes = s, c
		}
	}
	return start, votes, want
}

// A normalisation that may explain why old_string did not match.
type norm struct {
	what string
	fn   func(string) string
}

var norms = []norm{
	{"line endings", func(s string) string { return strings.ReplaceAll(s, "\r", "") }},
	{"trailing whitespace", func(s string) string {
		return mapLines(s, func(l string) string { return strings.TrimRight(l, " \t") })
	}},
	{"indentation", func(s string) string { return mapLines(s, func(l string) string { return strings.TrimLeft(l, " \t") }) }},
	{"whitespace inside lines", func(s string) string {
		return mapLines(s, func(l string) string { return strings.Join(strings.Fields(l), " ") })
	}},
	{"quotes", func(s string) string { return strings.Map(straightQuote, s) }},
	{"letter case", strings.ToLower},
}

// differences names the smallest set of normalisations under which the
// region contains old (region may hold more than old at both ends).
func differences(region, old string) string {
	best := -1
	for mask := 1; mask < 1<<len(norms); mask++ {
		if best >= 0 && bitCount(mask) >= bitCount(best) {
			continue
		}
		r, o := region, old
		for i, n := range norms {
			if mask&(1<<i) != 0 {
				r, o = n.fn(r), n.fn(o)
			}
		}
		if strings.Contains(r, o) {
			best = mask
		}
	}
	if best < 0 {
		return ""
	}
	var what []string
	for i, n := range norms {
		if best&(1<<i) != 0 {
			w := n.what
			if n.what == "indentation" {
				w += indentStyle(region)
			}
			what = append(what, w)
		}
	}
	return strings.Join(what, " and ")
}

func bitCount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// indentStyle says how the region indents, to tell the model which
// character to use.
func indentStyle(region string) string {
	tabs, spaces := 0, 0
	for _, l := range strings.Split(region, "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			tabs++
		case strings.HasPrefix(l, " "):
			spaces++
		}
	}
	switch {
	case tabs > 0 && spaces == 0:
		return " (the file indents with tabs)"
	case spaces > 0 && tabs == 0:
		return " (the file indents with spaces)"
	}
	return ""
}

func mapLines(s string, f func(string) string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n")
}

// straightQuote maps every kind of quote (typographic, single, double,
// backtick) to '"': a model that remembers 'x' where the file has "x"
// is as close as one that typed “x”.
func straightQuote(r rune) rune {
	switch r {
	case '‘', '’', '‚', '‛', '′', '\'', '`', '“', '”', '„', '‟', '″':
		return '"'
	}
	return r
}

// firstDifferentLine compares the region with old line by line, loosely
// for the first and last old lines, which may be partial.
func firstDifferentLine(region, olds []string) (int, string, string, bool) {
	for i := 0; i < len(olds) && i < len(region); i++ {
		f, o := strings.TrimSpace(region[i]), strings.TrimSpace(olds[i])
		switch {
		case f == o:
		case i == 0 && strings.HasSuffix(f, o):
		case i == len(olds)-1 && strings.HasPrefix(f, o):
		case len(olds) == 1 && strings.Contains(f, o):
		default:
			return i, region[i], olds[i], true
		}
	}
	return 0, "", "", false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return string(cutRunes([]byte(s), n)) + "…"
}
