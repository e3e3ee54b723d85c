package tools

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// patchHunk is one hunk of a patch as lines: old (context and removed
// lines, what the file must hold) and the body's kinds to rebuild the
// new text.
type patchHunk struct {
	header string
	start  int      // 1-based line the hunk says it starts at (0 for an insertion at the top)
	old    []string // context and '-' lines, without line endings
	kinds  []byte   // ' ', '-' or '+' per body line
	lines  []string // the body lines without prefix and line ending
	// noFinalNewline: the new side's last line has no newline.
	noFinalNewline bool
}

func parseHunk(h *diff.Hunk) patchHunk {
	ph := patchHunk{
		header: fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines),
		start:  int(h.OrigStartLine),
	}
	if h.OrigStartLine == 0 && h.OrigLines > 0 { // a *** Begin Patch hunk: no line numbers
		ph.header = strings.TrimSpace("@@ " + h.Section)
	}
	body := string(h.Body)
	ph.noFinalNewline = body != "" && !strings.HasSuffix(body, "\n")
	body = strings.TrimSuffix(body, "\n")
	if body == "" {
		return ph
	}
	for l := range strings.SplitSeq(body, "\n") {
		kind, text := byte(' '), l
		if l != "" {
			kind, text = l[0], l[1:]
		}
		// Models often drop the space of an empty context line.
		text = strings.TrimSuffix(text, "\r")
		ph.kinds = append(ph.kinds, kind)
		ph.lines = append(ph.lines, text)
		if kind != '+' {
			ph.old = append(ph.old, text)
		}
	}
	return ph
}

// newText rebuilds the hunk's new side with line ending eol. Context
// lines come from file (the matched lines, which may differ in
// whitespace from the patch's) when given.
func (ph patchHunk) newText(eol string, file []string) string {
	var b strings.Builder
	j := 0 // index into old / file
	for i, k := range ph.kinds {
		switch k {
		case '-':
			j++
			continue
		case '+':
			b.WriteString(ph.lines[i])
		default:
			if file != nil {
				b.WriteString(file[j])
			} else {
				b.WriteString(ph.lines[i])
			}
			j++
		}
		b.WriteString(eol)
	}
	s := b.String()
	if ph.noFinalNewline {
		s = strings.TrimSuffix(s, eol)
	}
	return s
}

// fileLines is a file split into lines: text without ending, and the
// byte offset where each line starts (plus one past the end).
type fileLines struct {
	text  []string
	start []int
}

func splitLines(content []byte) fileLines {
	var fl fileLines
	pos := 0
	for pos < len(content) {
		end := bytes.IndexByte(content[pos:], '\n')
		next := len(content)
		if end >= 0 {
			next = pos + end + 1
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(content[pos:next]), "\n"), "\r")
		fl.text = append(fl.text, line)
		fl.start = append(fl.start, pos)
		pos = next
	}
	fl.start = append(fl.start, len(content))
	return fl
}

// locateHunks finds every hunk of one file in content and returns the
// edits that apply them, sorted and not overlapping. A hunk is tried at
// the line it names (shifted by the hunks before it), then anywhere after
// the previous hunk, then with whitespace differences ignored; each try
// must find exactly one place.
//
// A "*** Begin Patch" file's hunks (codex not nil) are placed by their
// @@ lines and *** End of File instead (findCodexHunk).
//
// loose lists the hunks (1-based) found only with whitespace or
// punctuation ignored: their context lines land as the file has them,
// not as the patch wrote them.
func locateHunks(name string, content []byte, hunks []*diff.Hunk, codex []codexHunk) (edits []TextEdit, loose []int, err error) {
	fl := splitLines(content)
	eol := "\n"
	if usesCRLF(content) {
		eol = "\r\n"
	}
	from, shift := 0, 0 // first line a hunk may use; line shift so far
	for i, h := range hunks {
		ph := parseHunk(h)
		var (
			at       int
			tolerant bool
			err      error
		)
		if codex != nil {
			ph.header = strings.TrimSpace("@@ " + h.Section)
			at, tolerant, err = findCodexHunk(fl, ph, codex[i], from)
		} else {
			at, tolerant, err = findHunk(fl, ph, from, shift)
		}
		where := fmt.Sprintf("%s hunk %d (%s)", name, i+1, ph.header)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		var matched []string
		if tolerant {
			matched = fl.text[at : at+len(ph.old)]
			loose = append(loose, i+1)
		}
		// The edit covers the changed lines only, not the context around
		// them, so the reviewer sees the change itself.
		lead, trail := contextRuns(ph.kinds)
		if lead == len(ph.kinds) { // only context: nothing to change
			return nil, nil, fmt.Errorf("%s: the hunk has no '-' or '+' line", where)
		}
		oldStart, oldEnd := at+lead, at+len(ph.old)-trail
		newFull := ph.newText(eol, matched)
		newLines := strings.SplitAfter(newFull, eol)
		if newLines[len(newLines)-1] == "" {
			newLines = newLines[:len(newLines)-1]
		}
		newMid := strings.Join(newLines[lead:len(newLines)-trail], "")
		e := TextEdit{Start: fl.start[oldStart], End: fl.start[oldEnd], NewText: newMid}
		switch lastLine := oldEnd == len(fl.text) && len(content) > 0 && !bytes.HasSuffix(content, []byte("\n")); {
		case lastLine && oldEnd > oldStart && !ph.noFinalNewline:
			// The file's last line had no newline and the patch gives it one.
			e.NewText = strings.TrimSuffix(e.NewText, eol) + eol
		case lastLine && oldEnd == oldStart:
			// Lines added after a last line without a newline.
			e.NewText = eol + e.NewText
		}
		edits = append(edits, e)
		from = at + len(ph.old)
		shift = at - (ph.start - 1)
		if len(ph.old) == 0 {
			shift = at - ph.start
		}
	}
	return edits, loose, nil
}

// contextRuns counts the context lines at the start and the end of a
// hunk body.
func contextRuns(kinds []byte) (lead, trail int) {
	for lead < len(kinds) && kinds[lead] == ' ' {
		lead++
	}
	if lead == len(kinds) {
		return lead, 0
	}
	for trail < len(kinds) && kinds[len(kinds)-1-trail] == ' ' {
		trail++
	}
	return lead, trail
}

// findHunk returns the line where ph's old lines stand, searching from
// line from on; tolerant reports a whitespace-insensitive match.
func findHunk(fl fileLines, ph patchHunk, from, shift int) (at int, tolerant bool, err error) {
	n := len(ph.old)
	if n == 0 {
		// A pure insertion: only the stated line can place it.
		at = ph.start + shift // insert after line start (1-based) = before line index start
		if at < from || at > len(fl.text) {
			return 0, false, fmt.Errorf("it only adds lines, after line %d, which is outside the file (%d lines); add context lines so the hunk can be found", ph.start, len(fl.text))
		}
		return at, false, nil
	}
	want := ph.start - 1 + shift
	if want >= from && matchAt(fl.text, ph.old, want, exact) {
		return want, false, nil
	}
	for _, eq := range []func(a, b string) bool{exact, loose} {
		var hits []int
		for l := from; l+n <= len(fl.text); l++ {
			if matchAt(fl.text, ph.old, l, eq) {
				hits = append(hits, l)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], len(hits) == 1 && !matchAt(fl.text, ph.old, hits[0], exact), nil
		case len(hits) > 1:
			return 0, false, fmt.Errorf("its context and removed lines match %d places (lines %s); add more context lines so it matches one", len(hits), lineList(hits))
		}
	}
	return 0, false, fmt.Errorf("its context and removed lines are not in the file.\n%s", nearestText(fl, ph.old, from, want))
}

func exact(a, b string) bool { return a == b }

// loose compares lines ignoring whitespace differences and the typographic
// dashes and quotes a model may type for ASCII ones.
func loose(a, b string) bool { return looseLine(a) == looseLine(b) }

var punctFold = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
)

func looseLine(s string) string { return strings.Join(strings.Fields(punctFold.Replace(s)), " ") }

func matchAt(lines, want []string, at int, eq func(a, b string) bool) bool {
	if at < 0 || at+len(want) > len(lines) {
		return false
	}
	for i, w := range want {
		if !eq(lines[at+i], w) {
			return false
		}
	}
	return true
}

func lineList(hits []int) string {
	var parts []string
	for i, h := range hits {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(hits)-5))
			break
		}
		parts = append(parts, fmt.Sprint(h+1))
	}
	return strings.Join(parts, ", ")
}

// nearestText shows the stretch of the file most like want (most equal
// lines, whitespace ignored; nearer to the stated line on a tie) and
// each line that differs.
func nearestText(fl fileLines, want []string, from, stated int) string {
	norm := looseLine
	best, bestScore := -1, 0
	for l := from; l < len(fl.text); l++ {
		score := 0
		for i, w := range want {
			if l+i < len(fl.text) && norm(fl.text[l+i]) == norm(w) && norm(w) != "" {
				score++
			}
		}
		if score > bestScore || (score == bestScore && score > 0 && abs(l-stated) < abs(best-stated)) {
			best, bestScore = l, score
		}
	}
	if best < 0 {
		return fmt.Sprintf("No line of the hunk is in the file after line %d. Read the file again and copy the lines exactly.", from)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Nearest text at line %d (%d of %d lines equal):", best+1, bestScore, len(want))
	shown := 0
	for i, w := range want {
		got := "(end of file)"
		if best+i < len(fl.text) {
			got = fl.text[best+i]
		}
		if got == w {
			continue
		}
		if shown == 5 {
			b.WriteString("\n  …")
			break
		}
		shown++
		what := "differs"
		if norm(got) == norm(w) {
			what = "differs in whitespace"
		}
		fmt.Fprintf(&b, "\n  line %d %s: the patch has %q, the file has %q", best+i+1, what, w, got)
	}
	return b.String()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
