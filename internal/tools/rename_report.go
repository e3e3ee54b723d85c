package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxLeftNamed bounds the places of the old name a rename's result names.
const maxLeftNamed = 10

// renameTouched describes the occurrences of cs's edits that lie in
// comments or strings: " (2 in code, 1 in a comment: calc.go:3)", or ""
// when every one is code.
func renameTouched(cs []Change) string {
	code := 0
	var places []string
	counts := map[lexKind]int{}
	for _, c := range cs {
		regions := lexRegions(c.Path.Abs, c.Base.Content)
		for _, e := range c.Edits {
			k := lexKindAt(regions, e.Start)
			if k == lexCode {
				code++
				continue
			}
			counts[k]++
			places = append(places, fmt.Sprintf("%s:%d", c.Path.Rel, lineAt(c.Base.Content, e.Start)))
		}
	}
	if len(places) == 0 {
		return ""
	}
	var parts []string
	if code > 0 {
		parts = append(parts, fmt.Sprintf("%d in code", code))
	}
	for _, k := range []lexKind{lexComment, lexString} {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d in %s", n, countedKind(k, n)))
		}
	}
	return fmt.Sprintf(" (%s: %s)", strings.Join(parts, ", "), namedPlaces(places))
}

// renameLeft names the comments and strings of the changed files that
// still hold old after the rename: "Add is still in 2 comments and
// strings of the files changed, which the language server did not
// rename: main.go:5 (comment), main.go:7 (string)." "" when none do.
func renameLeft(cs []Change, old string) string {
	var places []string
	for _, c := range cs {
		if c.Delete {
			continue
		}
		regions := lexRegions(c.Path.Abs, c.After)
		for _, off := range wordOffsets(c.After, old) {
			if k := lexKindAt(regions, off); k != lexCode {
				places = append(places, fmt.Sprintf("%s:%d (%s)", c.Path.Rel, lineAt(c.After, off), k))
			}
		}
	}
	if len(places) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is still in %d comment%s or string%s of the files changed, which the language server did not rename: %s. Edit them if they name the symbol.",
		old, len(places), plural(len(places)), plural(len(places)), namedPlaces(places))
}

// namedPlaces joins places, the first maxLeftNamed of them; a place
// repeated at once (two occurrences on one line) is named once, with
// its count: "parser.go:543 ×2".
func namedPlaces(places []string) string {
	var counted []string
	for i := 0; i < len(places); {
		j := i + 1
		for j < len(places) && places[j] == places[i] {
			j++
		}
		if j-i > 1 {
			counted = append(counted, fmt.Sprintf("%s ×%d", places[i], j-i))
		} else {
			counted = append(counted, places[i])
		}
		i = j
	}
	places = counted
	if len(places) > maxLeftNamed {
		return strings.Join(places[:maxLeftNamed], ", ") + fmt.Sprintf(" and %d more", len(places)-maxLeftNamed)
	}
	return strings.Join(places, ", ")
}

func countedKind(k lexKind, n int) string {
	if n == 1 {
		return "a " + k.String()
	}
	return k.String() + "s"
}

// lineAt is the 1-based line of the byte at off.
func lineAt(src []byte, off int) int {
	return 1 + bytes.Count(src[:min(off, len(src))], []byte("\n"))
}

// wordOffsets returns where word occurs in src as a whole identifier.
func wordOffsets(src []byte, word string) []int {
	if word == "" {
		return nil
	}
	var out []int
	w := []byte(word)
	for i := 0; ; {
		j := bytes.Index(src[i:], w)
		if j < 0 {
			return out
		}
		at := i + j
		before, _ := utf8.DecodeLastRune(src[:at])
		after, _ := utf8.DecodeRune(src[at+len(w):])
		if !isIdentRune(before) && !isIdentRune(after) {
			out = append(out, at)
		}
		i = at + len(w)
	}
}
