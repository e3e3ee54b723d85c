package complete

import "strings"

// bytesPerToken is a cautious count of the bytes of code one token
// holds (code tokenises at 3–4 bytes), so that a prompt cut by it fits.
const bytesPerToken = 3

// fit cuts p to tokens, the input the model accepts beside its answer
// (its context window as agent.ContextWindow knows it, less the
// answer's bound). The defaults (source.go, prompt.go) are about 12 KB,
// which fits every window from 4k tokens on; a smaller one loses the
// context first (the recent edits, the related files, the outline),
// then the far ends of the suffix and of the prefix, never the lines
// at the cursor.
func (p Prompt) fit(tokens int) Prompt {
	budget := max(tokens, 0) * bytesPerToken
	size := func() int {
		n := len(p.Prefix) + len(p.Suffix)
		for _, s := range p.Outline {
			n += len(s) + 1
		}
		for _, r := range p.Related {
			n += len(r.Path) + len(r.Text)
		}
		for _, e := range p.Edits {
			n += len(e) + 1
		}
		return n
	}
	for size() > budget && len(p.Edits) > 0 {
		p.Edits = p.Edits[:len(p.Edits)-1] // the oldest first
	}
	for size() > budget && len(p.Related) > 0 {
		p.Related = p.Related[:len(p.Related)-1]
	}
	for size() > budget && len(p.Outline) > 0 {
		p.Outline = p.Outline[1:] // the farthest from the cursor first
	}
	if over := size() - budget; over > 0 {
		// The rest comes off the far ends, on whole lines: the text
		// around the cursor gets what is left, the suffix at most a
		// third of it unless the prefix needs less.
		text := len(p.Prefix) + len(p.Suffix) - over
		keep := min(len(p.Suffix), max(text/3, text-len(p.Prefix)))
		p.Suffix = cutTail(p.Suffix, keep)
		p.Prefix = cutHead(p.Prefix, text-len(p.Suffix))
	}
	return p
}

// cutTail keeps at most n bytes of s from its start, ending on a line.
func cutTail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 {
		return s[:i+1]
	}
	return ""
}

// cutHead keeps at most n bytes of s from its end, starting on a line
// (the cursor's line, the last, is kept whole).
func cutHead(s string, n int) string {
	if n >= len(s) {
		return s
	}
	last := strings.LastIndexByte(s, '\n') + 1 // the cursor's line
	if n <= len(s)-last {
		return s[last:]
	}
	if i := strings.IndexByte(s[len(s)-n:], '\n'); i >= 0 {
		return s[len(s)-n+i+1:]
	}
	return s[last:]
}
