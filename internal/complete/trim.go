package complete

import "strings"

// trim turns a model's answer into the insertion: for a chat answer,
// without a Markdown fence, the cursor mark or a repeat of the cursor's
// line; then cut where it runs into the text after the cursor (a line
// equal to the suffix's first non-blank line, or a tail the suffix
// begins with), at maxLines lines, without trailing blanks.
func trim(answer string, p Prompt, maxLines int, chat bool) string {
	s := strings.ReplaceAll(answer, "\r\n", "\n")
	linePrefix := p.Prefix[strings.LastIndexByte(p.Prefix, '\n')+1:]
	if chat {
		s = unfence(s)
		s = strings.ReplaceAll(s, cursorMark, "")
		if lp := strings.TrimLeft(linePrefix, " \t"); lp != "" {
			if i := strings.Index(s, lp); i >= 0 && strings.TrimSpace(s[:i]) == "" {
				s = s[i+len(lp):]
			}
		}
	}
	// Stop where the answer repeats the code after the cursor.
	next := firstNonBlankLine(p.Suffix)
	lines := strings.SplitAfter(s, "\n")
	for i := 1; i < len(lines); i++ {
		if next != "" && strings.TrimSpace(lines[i]) == next {
			lines = lines[:i]
			break
		}
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	s = strings.TrimRight(strings.Join(lines, ""), " \t\n")
	// The rest of the cursor's line, when the answer ends with its start:
	// "a, b)" before ")" is "a, b".
	rest := p.Suffix
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimRight(rest, " \t\r")
	for k := min(len(rest), len(s)); k > 0; k-- {
		if strings.TrimSpace(rest[:k]) != "" && strings.HasSuffix(s, rest[:k]) {
			s = strings.TrimRight(s[:len(s)-k], " \t")
			break
		}
	}
	return s
}

// unfence drops a Markdown code fence around s.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	} else {
		return ""
	}
	if i := strings.LastIndex(t, "```"); i >= 0 {
		t = t[:i]
	}
	return t
}

func firstNonBlankLine(s string) string {
	for l := range strings.Lines(s) {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
