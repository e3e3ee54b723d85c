package search

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// grepLine is one output line of a file: a match, a context line, or a
// "--" separator between groups that are not adjacent.
type grepLine struct {
	num   int
	text  string
	match bool
	sep   bool
}

// fileHits is what one file contributed.
type fileHits struct {
	path  string // as displayed
	count int    // every matching line, shown or not
	lines []grepLine
}

// searchBuffer finds the matching lines of content. It keeps the text
// of at most keep matches (with their context): the rest is counted.
func searchBuffer(q grepQuery, path string, content []byte, keep int, scratch *[]byte) fileHits {
	h := fileHits{path: path}
	type hit struct{ start, end, num int }
	var hits []hit
	lastPos, lastNum := 0, 1
	q.m.each(content, scratch, func(start, end int) bool {
		h.count++
		if q.mode == "content" && len(hits) < keep {
			// Lines are counted only up to matches, never for the rest.
			lastNum += bytes.Count(content[lastPos:start], []byte{'\n'})
			lastPos = start
			hits = append(hits, hit{start, end, lastNum})
		}
		return true
	})
	if len(hits) == 0 {
		return h
	}
	nextLine := 0 // the first line number not yet emitted
	for i, m := range hits {
		// Context before: walk back from the match's start.
		from, fromNum := m.start, m.num
		for fromNum > 1 && fromNum > m.num-q.context && fromNum > nextLine && from > 0 {
			from = bytes.LastIndexByte(content[:from-1], '\n') + 1
			fromNum--
		}
		if q.context > 0 && nextLine > 0 && fromNum > nextLine {
			h.lines = append(h.lines, grepLine{sep: true})
		}
		for off, n := from, fromNum; n < m.num; n++ {
			e := lineEnd(content, off)
			h.lines = append(h.lines, grepLine{num: n, text: clipLine(content[off:e], GrepMaxLineLen)})
			off = e + 1
		}
		h.lines = append(h.lines, grepLine{num: m.num, text: clipAround(q.m, content[m.start:m.end], GrepMaxLineLen), match: true})
		nextLine = m.num + 1
		// Context after, up to the next kept match.
		stop := m.num + q.context
		if i+1 < len(hits) {
			stop = min(stop, hits[i+1].num-1)
		}
		for off := m.end + 1; nextLine <= stop && off < len(content); nextLine++ {
			e := lineEnd(content, off)
			h.lines = append(h.lines, grepLine{num: nextLine, text: clipLine(content[off:e], GrepMaxLineLen)})
			off = e + 1
		}
	}
	return h
}

func lineEnd(b []byte, off int) int {
	if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(b)
}

// grepCollector gathers the files' hits from all workers. Only the text
// that can still be shown is kept: once the files seen so far hold more
// than the limit, the text of the files that sort after the limit is
// dropped, so memory stays bounded however many lines match.
type grepCollector struct {
	q   grepQuery
	mu  sync.Mutex
	hs  []fileHits
	kep int    // lines of text held in hs
	cut string // files sorting after this keep no text ("" = no cut yet)

	searched, binary, large, unreadable atomic.Int64
	// single: one file was searched, which the output names.
	single bool
	// deps: dependencies the walk left out; negated: the glob was "!…".
	deps    int64
	negated bool
}

func newGrepCollector(q grepQuery) *grepCollector { return &grepCollector{q: q} }

// keep is how many matches of one file may carry text.
func (c *grepCollector) keep() int { return c.q.limit }

func (c *grepCollector) add(h fileHits) {
	if h.count == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut != "" && h.path > c.cut {
		h.lines = nil
	}
	c.hs = append(c.hs, h)
	c.kep += len(h.lines)
	if c.kep > 4*c.q.limit*(2*c.q.context+2)+1024 {
		c.prune()
	}
}

func (c *grepCollector) prune() {
	slices.SortFunc(c.hs, func(a, b fileHits) int { return strings.Compare(a.path, b.path) })
	shown, kept := 0, 0
	for i := range c.hs {
		if shown >= c.q.limit {
			c.hs[i].lines = nil
			continue
		}
		shown += c.hs[i].count
		kept += len(c.hs[i].lines)
		c.cut = c.hs[i].path
	}
	c.kep = kept
}

// asWritten shows a pattern as the model wrote it, between backticks:
// quoted as a Go string, `\.err\b` would read "\\.err\\b", and the model
// could not tell whether it searched for two backslashes. Only a pattern
// that holds a backtick or a line break is quoted.
func asWritten(pattern string) string {
	if strings.ContainsAny(pattern, "`\n\r") {
		return strconv.Quote(pattern)
	}
	return "`" + pattern + "`"
}

// render formats the result for the model.
func (c *grepCollector) render(pattern, where string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.SortFunc(c.hs, func(a, b fileHits) int { return strings.Compare(a.path, b.path) })
	total := 0
	for _, h := range c.hs {
		total += h.count
	}
	var b strings.Builder
	if total == 0 {
		switch n := c.searched.Load(); {
		case c.single:
			fmt.Fprintf(&b, "No matches for %s in %s.", asWritten(pattern), where)
		case n == 0 && c.negated:
			fmt.Fprintf(&b, "No files searched in %s: the glob excludes every file there.", where)
		default:
			fmt.Fprintf(&b, "No matches for %s in %s (%d files searched).", asWritten(pattern), where, n)
		}
		c.notes(&b, true)
		return b.String()
	}
	switch c.q.mode {
	case "files_with_matches", "count":
		shown := 0
		for _, h := range c.hs {
			if shown == c.q.limit || b.Len() > grepMaxOutput {
				break
			}
			b.WriteString(h.path)
			if c.q.mode == "count" {
				b.WriteString(":" + strconv.Itoa(h.count))
			}
			b.WriteByte('\n')
			shown++
		}
		if rest := len(c.hs) - shown; rest > 0 {
			fmt.Fprintf(&b, "… and %d more files (%d matches in %d files in all)\n", rest, total, len(c.hs))
		}
	default:
		shown, files := 0, 0
		for fi, h := range c.hs {
			if shown == c.q.limit || b.Len() > grepMaxOutput || h.lines == nil {
				break
			}
			files++
			// The path once, then its lines (ripgrep's --heading): the
			// model rereads every line of this in every later turn.
			if fi > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(h.path)
			b.WriteByte('\n')
			for _, l := range h.lines {
				if l.match && (shown == c.q.limit || b.Len() > grepMaxOutput) {
					break
				}
				switch {
				case l.sep:
					b.WriteString("--\n")
				case l.match:
					fmt.Fprintf(&b, "%d:%s\n", l.num, l.text)
					shown++
				default:
					fmt.Fprintf(&b, "%d-%s\n", l.num, l.text)
				}
			}
		}
		if rest := total - shown; rest > 0 {
			restFiles := 0
			left := shown
			for _, h := range c.hs {
				if left >= h.count {
					left -= h.count
					continue
				}
				left = 0
				restFiles++
			}
			fmt.Fprintf(&b, "… and %d more matches in %d files (%d matches in %d files in all; narrow path or glob, or raise limit)\n", rest, restFiles, total, len(c.hs))
		}
	}
	c.notes(&b, false)
	return strings.TrimRight(b.String(), "\n")
}

// notes says what was skipped, so "no match" is not taken for "absent".
func (c *grepCollector) notes(b *strings.Builder, none bool) {
	var parts []string
	if n := c.binary.Load(); n > 0 && none {
		parts = append(parts, fmt.Sprintf("%d binary files skipped", n))
	}
	if n := c.large.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d files over %d MB skipped", n, grepMaxFileSize>>20))
	}
	if n := c.unreadable.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d files or directories could not be read", n))
	}
	if c.deps > 0 && none {
		parts = append(parts, DependencyNote)
	}
	if len(parts) > 0 {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte(' ')
		}
		b.WriteString("(" + strings.Join(parts, "; ") + ")")
	}
}

// clipLine shortens a displayed line to at most max bytes on a rune
// boundary, saying how much was cut.
func clipLine(line []byte, max int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) <= max {
		return string(line)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d more bytes]", line[:cut], len(line)-cut)
}

// clipAround shortens a matching line as clipLine does, except that a
// match beyond the first width bytes (a minified file's one long line)
// is shown in a window of width bytes around it.
func clipAround(m *lineMatcher, line []byte, width int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) <= width {
		return string(line)
	}
	at, end := m.index(line)
	if at < 0 || end <= width-width/4 {
		return clipLine(line, width)
	}
	from := max(0, at-width/3) // the match a third into the window
	to := min(len(line), from+width)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	var b strings.Builder
	if from > 0 {
		fmt.Fprintf(&b, "[%d bytes before] …", from)
	}
	b.Write(line[from:to])
	if to < len(line) {
		fmt.Fprintf(&b, "… [%d more bytes]", len(line)-to)
	}
	return b.String()
}
