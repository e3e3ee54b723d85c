package tools

import (
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// pendingLine is the result of an edit that landed in the run's own
// view, pending the user's review: the agent goes on at once, so it
// gets the file, the counts and the lines it now holds changed, not the
// whole diff (it knows what it wrote):
//
//	Edited calc.go (+3 -1; lines 12–14, 40): pending the user's review
//
// said is false for one file of several: the result says it once.
func pendingLine(verb string, c Change, d diff.Result, said bool) string {
	where := ""
	if !c.Delete && !c.Create {
		if lines := changedLines(c); lines != "" {
			where = "; " + lines
		}
	}
	if !said {
		return fmt.Sprintf("%s %s (+%d -%d%s)\n", verb, c.Path.Rel, d.Added, d.Removed, where)
	}
	return fmt.Sprintf("%s %s (+%d -%d%s): pending the user's review\n", verb, c.Path.Rel, d.Added, d.Removed, where)
}

// changedLines lists the lines of c.After its edits wrote: "lines
// 12–14, 40" (a pure deletion names the line after it).
func changedLines(c Change) string {
	var spans []string
	shift := 0
	for _, e := range c.Edits {
		start := e.Start + shift
		shift += len(e.NewText) - (e.End - e.Start)
		first := 1 + strings.Count(string(c.After[:min(start, len(c.After))]), "\n")
		last := first + strings.Count(strings.TrimSuffix(e.NewText, "\n"), "\n")
		span := fmt.Sprint(first)
		if first != last {
			span = fmt.Sprintf("%d–%d", first, last)
		}
		// Two edits of one line (a rename's two words) name it once.
		if len(spans) == 0 || spans[len(spans)-1] != span {
			spans = append(spans, span)
		}
	}
	if len(spans) == 0 {
		return ""
	}
	if len(spans) == 1 && !strings.Contains(spans[0], "–") {
		return "line " + spans[0]
	}
	return "lines " + strings.Join(spans, ", ")
}
