package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The language tools take a line and the symbol as it is written there,
// never a column: models count lines reliably (read_file shows them) and
// columns not at all. These helpers find the byte offset; the language
// feature implementations convert it to the server's encoding.

// lineBounds returns the byte range of 1-based line n of content
// (without its line ending) and how many lines content has. ok is false
// for a line past the end.
func lineBounds(content []byte, n int) (start, end, lines int, ok bool) {
	lines = bytes.Count(content, nl)
	if len(content) > 0 && content[len(content)-1] != '\n' {
		lines++
	}
	if n < 1 || n > max(lines, 1) {
		return 0, 0, lines, false
	}
	for i := 1; i < n; i++ {
		start += bytes.IndexByte(content[start:], '\n') + 1
	}
	end = len(content)
	if k := bytes.IndexByte(content[start:], '\n'); k >= 0 {
		end = start + k
	}
	if end > start && content[end-1] == '\r' {
		end--
	}
	return start, end, lines, true
}

// lineText returns 1-based line n of content, trimmed and cut to a
// readable length, for answers that cite a line.
func lineText(content []byte, n int) string {
	s, e, _, ok := lineBounds(content, n)
	if !ok {
		return ""
	}
	t := strings.TrimSpace(string(content[s:e]))
	if len(t) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut] + "…"
	}
	return t
}

// symbolOffset returns the byte offset in content of the occurrence-th
// (1-based; 0 means 1) appearance of symbol on 1-based line n, as a
// whole identifier when symbol is one. The error is for the model: it
// shows the line, so the model can correct itself in one step.
func symbolOffset(content []byte, rel string, n int, symbol string, occurrence int) (int, error) {
	start, end, lines, ok := lineBounds(content, n)
	if !ok {
		return 0, fmt.Errorf("line %d is past the end of %s (%d lines)", n, rel, lines)
	}
	if symbol == "" {
		return 0, fmt.Errorf("symbol is empty: give the identifier as written on line %d", n)
	}
	line := string(content[start:end])
	at := identifierMatches(line, symbol)
	occurrence = max(occurrence, 1)
	switch {
	case len(at) == 0:
		return 0, fmt.Errorf("%q is not on line %d of %s, which reads: %s", symbol, n, rel, strings.TrimSpace(line))
	case occurrence > len(at):
		return 0, fmt.Errorf("%q appears %d time%s on line %d of %s, not %d: %s", symbol, len(at), plural(len(at)), n, rel, occurrence, strings.TrimSpace(line))
	}
	return start + at[occurrence-1], nil
}

// identifierMatches returns where symbol occurs in line. When symbol
// starts (ends) with an identifier character, a match must not be
// preceded (followed) by one: "Add" is not found in "AddAll".
func identifierMatches(line, symbol string) []int {
	first, _ := utf8.DecodeRuneInString(symbol)
	last, _ := utf8.DecodeLastRuneInString(symbol)
	var at []int
	for i := 0; i+len(symbol) <= len(line); {
		k := strings.Index(line[i:], symbol)
		if k < 0 {
			break
		}
		pos := i + k
		i = pos + 1
		if isIdentRune(first) {
			if r, _ := utf8.DecodeLastRuneInString(line[:pos]); pos > 0 && isIdentRune(r) {
				continue
			}
		}
		if isIdentRune(last) {
			if r, _ := utf8.DecodeRuneInString(line[pos+len(symbol):]); pos+len(symbol) < len(line) && isIdentRune(r) {
				continue
			}
		}
		at = append(at, pos)
	}
	return at
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
