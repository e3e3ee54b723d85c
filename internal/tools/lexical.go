package tools

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// A rename by a language server may touch a symbol's name in comments
// (gopls renames doc comments) and leaves it in others and in strings.
// rename_symbol counts what it touched outside code apart, and names the
// comments and strings of the files it changed that still hold the old
// name, so the model can tell prose it should fix from code the server
// renamed. This is a lexical look at the text, by the family of the
// language: enough to tell a comment or a string from code.

// lexKind is what a byte of source text is part of.
type lexKind int

const (
	lexCode lexKind = iota
	lexComment
	lexString
)

func (k lexKind) String() string {
	switch k {
	case lexComment:
		return "comment"
	case lexString:
		return "string"
	}
	return "code"
}

// lexRegion is a comment or a string: src[start:end].
type lexRegion struct {
	start, end int
	kind       lexKind
}

// lexFamily is how a language writes comments and strings.
type lexFamily struct {
	line     string // line comment opener: "//", "#"
	block    bool   // /* … */
	backtick bool   // `raw` (Go) or `template` (JavaScript) strings
	triple   bool   // Python's ''' and """
	// charQuote: ' opens a character literal only when it closes one
	// character later ('a', '\n'), as Rust's lifetimes ('a) are code.
	charQuote bool
}

var (
	goFamily     = lexFamily{line: "//", block: true, backtick: true}
	jsFamily     = lexFamily{line: "//", block: true, backtick: true}
	cFamily      = lexFamily{line: "//", block: true}
	rustFamily   = lexFamily{line: "//", block: true, charQuote: true}
	pythonFamily = lexFamily{line: "#", triple: true}
)

var lexFamilies = map[string]lexFamily{
	".go": goFamily,
	".js": jsFamily, ".jsx": jsFamily, ".mjs": jsFamily, ".cjs": jsFamily,
	".ts": jsFamily, ".tsx": jsFamily, ".mts": jsFamily, ".cts": jsFamily,
	".c": cFamily, ".h": cFamily, ".cc": cFamily, ".cpp": cFamily, ".cxx": cFamily, ".hpp": cFamily,
	".java": cFamily, ".kt": cFamily, ".cs": cFamily, ".scala": cFamily, ".swift": cFamily, ".dart": cFamily,
	".rs": rustFamily,
	".py": pythonFamily, ".pyi": pythonFamily,
}

// lexRegions returns the comments and strings of src, in order; nil for
// a language it does not know (then everything counts as code).
func lexRegions(path string, src []byte) []lexRegion {
	fam, ok := lexFamilies[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil
	}
	var out []lexRegion
	for i := 0; i < len(src); {
		rest := src[i:]
		switch {
		case bytes.HasPrefix(rest, []byte(fam.line)):
			end := bytes.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			out = append(out, lexRegion{i, i + end, lexComment})
			i += end
		case fam.block && bytes.HasPrefix(rest, []byte("/*")):
			end := bytes.Index(rest[2:], []byte("*/"))
			if end < 0 {
				end = len(rest)
			} else {
				end += 4
			}
			out = append(out, lexRegion{i, i + end, lexComment})
			i += end
		case fam.triple && (bytes.HasPrefix(rest, []byte(`"""`)) || bytes.HasPrefix(rest, []byte("'''"))):
			end := bytes.Index(rest[3:], rest[:3])
			if end < 0 {
				end = len(rest)
			} else {
				end += 6
			}
			out = append(out, lexRegion{i, i + end, lexString})
			i += end
		case rest[0] == '"' || rest[0] == '\'' || fam.backtick && rest[0] == '`':
			if rest[0] == '\'' && fam.charQuote && !isCharLiteral(rest) {
				i++
				continue
			}
			end := quotedEnd(rest, rest[0] != '`')
			out = append(out, lexRegion{i, i + end, lexString})
			i += end
		default:
			i++
		}
	}
	return out
}

// quotedEnd returns the length of the quoted text at the start of s,
// its closing quote included; an escaped string ends at a newline too
// (an unterminated literal must not swallow the file).
func quotedEnd(s []byte, escaped bool) int {
	q := s[0]
	for j := 1; j < len(s); j++ {
		switch {
		case escaped && s[j] == '\\':
			j++
		case s[j] == q:
			return j + 1
		case escaped && s[j] == '\n':
			return j
		}
	}
	return len(s)
}

// isCharLiteral reports whether s starts with a character literal: 'x'
// or an escape ('\n', '\u{1F600}').
func isCharLiteral(s []byte) bool {
	if len(s) >= 3 && s[1] == '\\' {
		return true
	}
	// One character, perhaps several bytes of UTF-8, then the quote.
	_, n := utf8.DecodeRune(s[1:])
	return len(s) > 1+n && s[1+n] == '\''
}

// lexKindAt returns what the byte at off of a text with regions is
// part of.
func lexKindAt(regions []lexRegion, off int) lexKind {
	i, found := slices.BinarySearchFunc(regions, off, func(r lexRegion, off int) int {
		switch {
		case r.end <= off:
			return -1
		case r.start > off:
			return 1
		}
		return 0
	})
	if !found || i >= len(regions) {
		return lexCode
	}
	return regions[i].kind
}
