package diff

// A run of removed (or added) lines can often stand in several places
// with the same result: removing "}\n\nfunc b() {\n\ty()\n" or
// "func b() {\n\ty()\n}\n\n" leaves the same file. The LCS picks one
// arbitrarily; git picks the one a reader expects with its "indent
// heuristic" (xdiff's xdl_change_compact), which scores each position
// by the indentation and blank lines around its two ends. This is that
// algorithm, with git's weights, so that echoed diffs read as git's.

// slideChanges slides the runs of changed lines of one side (recs and
// chg) to their best position. other is the other side's change flags:
// a run that can be lined up with a change there is (a replacement
// rather than a removal), as git does; otherwise the indent heuristic
// decides. Sliding keeps the diff valid: a run moves down only over a
// line equal to its first, up only over one equal to its last.
func slideChanges(recs []string, chg, other []bool) {
	g := firstGroup(chg)
	og := firstGroup(other)
	for {
		if g.end > g.start {
			slideGroup(recs, chg, other, &g, &og)
		}
		if !g.next(chg) {
			return
		}
		og.next(other)
	}
}

// slideGroup slides the run g as far up and down as it goes (merging
// with runs it meets), then settles it: lined up with a change of the
// other side if it can be, else where the indent heuristic scores best.
func slideGroup(recs []string, chg, other []bool, g, og *group) {
	var earliestEnd, endMatchingOther int
	for {
		size := g.end - g.start
		endMatchingOther = -1
		for g.slideUp(recs, chg) {
			og.previous(other)
		}
		earliestEnd = g.end
		if og.end > og.start {
			endMatchingOther = g.end
		}
		for g.slideDown(recs, chg) {
			og.next(other)
			if og.end > og.start {
				endMatchingOther = g.end
			}
		}
		if size == g.end-g.start {
			break
		}
	}
	switch {
	case g.end == earliestEnd: // it cannot move
	case endMatchingOther != -1:
		for og.end == og.start {
			g.slideUp(recs, chg)
			og.previous(other)
		}
	default:
		size := g.end - g.start
		shift := max(earliestEnd, g.end-size-1, g.end-maxSliding)
		best := -1
		var bestScore splitScore
		for ; shift <= g.end; shift++ {
			var s splitScore
			s.add(measureSplit(recs, shift))
			s.add(measureSplit(recs, shift-size))
			if best == -1 || s.cmp(bestScore) <= 0 {
				best, bestScore = shift, s
			}
		}
		for g.end > best {
			g.slideUp(recs, chg)
			og.previous(other)
		}
	}
}

// group is a run of changed lines [start, end), possibly empty: the
// changes between two unchanged lines. The unchanged lines of both
// sides pair up, so the k-th group of one side faces the k-th of the
// other.
type group struct{ start, end int }

func firstGroup(chg []bool) group {
	var g group
	for g.end < len(chg) && chg[g.end] {
		g.end++
	}
	return g
}

// next moves to the group after the unchanged line that ends g.
func (g *group) next(chg []bool) bool {
	if g.end == len(chg) {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for g.end < len(chg) && chg[g.end] {
		g.end++
	}
	return true
}

// previous moves to the group before the unchanged line that starts g.
func (g *group) previous(chg []bool) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for g.start > 0 && chg[g.start-1] {
		g.start--
	}
	return true
}

// slideUp moves the run up by one line when the line above equals its
// last, joining a run it then touches.
func (g *group) slideUp(recs []string, chg []bool) bool {
	if g.start == 0 || recs[g.start-1] != recs[g.end-1] {
		return false
	}
	g.start--
	chg[g.start] = true
	g.end--
	chg[g.end] = false
	for g.start > 0 && chg[g.start-1] {
		g.start--
	}
	return true
}

// slideDown moves the run down by one line when the line below equals
// its first, joining a run it then touches.
func (g *group) slideDown(recs []string, chg []bool) bool {
	if g.end == len(recs) || recs[g.start] != recs[g.end] {
		return false
	}
	chg[g.start] = false
	g.start++
	chg[g.end] = true
	g.end++
	for g.end < len(chg) && chg[g.end] {
		g.end++
	}
	return true
}

// git's limits and weights (xdiff/xdiffi.c).
const (
	maxIndent  = 200
	maxBlanks  = 20
	maxSliding = 100

	startOfFilePenalty             = 1
	endOfFilePenalty               = 21
	totalBlankWeight               = -30
	postBlankWeight                = 6
	relativeIndentPenalty          = -4
	relativeIndentWithBlankPenalty = 10
	relativeOutdentPenalty         = 24
	relativeOutdentWithBlank       = 17
	relativeDedentPenalty          = 23
	relativeDedentWithBlank        = 17
	indentWeight                   = 60
)

// splitMeasure describes the place between line split-1 and line split.
type splitMeasure struct {
	endOfFile  bool
	indent     int // of the line after the split; -1 if blank
	preBlank   int // blank lines just above the split
	preIndent  int // of the nearest non-blank line above; -1 if none
	postBlank  int // blank lines after the line after the split
	postIndent int // of the nearest non-blank line after that; -1 if none
}

func measureSplit(recs []string, split int) splitMeasure {
	m := splitMeasure{indent: -1, preIndent: -1, postIndent: -1}
	if split >= len(recs) {
		m.endOfFile = true
	} else {
		m.indent = lineIndent(recs[split])
	}
	for i := split - 1; i >= 0; i-- {
		if m.preIndent = lineIndent(recs[i]); m.preIndent != -1 {
			break
		}
		if m.preBlank++; m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	for i := split + 1; i < len(recs); i++ {
		if m.postIndent = lineIndent(recs[i]); m.postIndent != -1 {
			break
		}
		if m.postBlank++; m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

// lineIndent is a line's indentation in columns (tabs to multiples of
// 8), or -1 for a line of only whitespace.
func lineIndent(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		case '\n', '\r', '\v', '\f':
		default:
			return n
		}
		if n >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

// splitScore is the badness of a run's position: lower is better.
type splitScore struct{ effectiveIndent, penalty int }

func (s *splitScore) add(m splitMeasure) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += startOfFilePenalty
	}
	if m.endOfFile {
		s.penalty += endOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += totalBlankWeight*totalBlank + postBlankWeight*postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += indent
	switch {
	case indent == -1, m.preIndent == -1:
	case indent > m.preIndent:
		s.penalty += pick(anyBlanks, relativeIndentWithBlankPenalty, relativeIndentPenalty)
	case indent == m.preIndent:
	case m.postIndent != -1 && m.postIndent > indent:
		// Less indented than the line above and more below: likely the
		// start of a block (an else).
		s.penalty += pick(anyBlanks, relativeOutdentWithBlank, relativeOutdentPenalty)
	default: // likely the end of a block
		s.penalty += pick(anyBlanks, relativeDedentWithBlank, relativeDedentPenalty)
	}
}

// cmp is negative when s is better than o.
func (s splitScore) cmp(o splitScore) int {
	c := 0
	switch {
	case s.effectiveIndent > o.effectiveIndent:
		c = 1
	case s.effectiveIndent < o.effectiveIndent:
		c = -1
	}
	return indentWeight*c + s.penalty - o.penalty
}

func pick(cond bool, a, b int) int {
	if cond {
		return a
	}
	return b
}
