package tools

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// A rename and the references answer before it should count the same
// places: both include the declaration. When they differ, the model
// must not be left to wonder which one is wrong, so the rename says
// where the difference is: occurrences in comments (servers such as
// gopls rename a doc comment's mention), in generated files, or places
// one answer has and the other has not.

// maxRemembered bounds the references answers kept for comparison.
const maxRemembered = 16

// referencesAnswer is one references answer: the symbol as the model
// named it and the places listed.
type referencesAnswer struct {
	name string
	locs []Location
}

// answers keeps the latest references answers of a session.
type answers struct {
	mu   sync.Mutex
	list []referencesAnswer
}

func (a *answers) remember(name string, locs []Location) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = append(a.list, referencesAnswer{name: name, locs: locs})
	if len(a.list) > maxRemembered {
		a.list = a.list[1:]
	}
}

// about returns the latest answer for name that lists path:line (the
// place a rename starts from), or nil.
func (a *answers) about(name, path string, line int) *referencesAnswer {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.list) - 1; i >= 0; i-- {
		r := a.list[i]
		if r.name != name {
			continue
		}
		for _, l := range r.locs {
			if l.Path == path && l.Line == line {
				return &r
			}
		}
	}
	return nil
}

// countDifference explains why a rename's occurrences differ from the
// last references answer for the symbol; "" when they agree or there
// was none.
func countDifference(prev *referencesAnswer, cs []Change, n int) string {
	if prev == nil || len(prev.locs) == n {
		return ""
	}
	type place struct {
		path string
		line int
	}
	listed := map[place]int{}
	for _, l := range prev.locs {
		listed[place{l.Path, l.Line}]++
	}
	var comments, generated, other []string
	for _, c := range cs {
		gen := isGenerated(c.Base.Content)
		for _, e := range c.Edits {
			line := 1 + bytes.Count(c.Base.Content[:e.Start], nl)
			k := place{c.Path.Abs, line}
			if listed[k] > 0 {
				listed[k]--
				continue
			}
			at := fmt.Sprintf("%s:%d", c.Path.Rel, line)
			switch {
			case gen:
				generated = append(generated, at)
			case inComment(c.Base.Content, e.Start):
				comments = append(comments, at)
			default:
				other = append(other, at)
			}
		}
	}
	var missed int
	for _, k := range listed {
		missed += k
	}
	var parts []string
	add := func(what string, at []string) {
		if len(at) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(at), what, strings.Join(firstN(at, 5), ", ")))
		}
	}
	add("in comments", comments)
	add("in generated files", generated)
	add("that the references answer did not list", other)
	if missed > 0 {
		parts = append(parts, fmt.Sprintf("%d listed place%s not changed (outside the files the rename may edit, or changed since)", missed, plural(missed)))
	}
	return fmt.Sprintf("The last references answer for %s listed %d place%s (the declaration included); the rename changed %d: %s.",
		prev.name, len(prev.locs), plural(len(prev.locs)), n, strings.Join(parts, "; "))
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
}

// isGenerated reports whether content carries the generated-code mark
// (Go's "Code generated … DO NOT EDIT.", used by other generators too).
func isGenerated(content []byte) bool {
	head := content[:min(len(content), 2048)]
	return bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

// inComment guesses whether off is inside a comment: the line before it
// holds a line-comment marker, or starts like a block comment's line.
// The guess is for the explanation only; the rename is the server's.
func inComment(content []byte, off int) bool {
	start := bytes.LastIndexByte(content[:off], '\n') + 1
	before := string(content[start:off])
	trimmed := strings.TrimSpace(before)
	if strings.HasPrefix(trimmed, "*") || strings.HasPrefix(trimmed, "/*") {
		return true
	}
	return strings.Contains(before, "//") || strings.Contains(before, "# ") || strings.HasPrefix(trimmed, "#")
}
