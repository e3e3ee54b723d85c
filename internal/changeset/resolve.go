package changeset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// A hunk the user's text touches (a conflict, Hunk.Conflict) is left
// pending by a plain keep: nothing of the user's is ever replaced
// without their say. Selection.Conflicts is that say, one Resolution
// for every conflicted hunk the keep chose. The conflicting region is
// diff.ConflictRegion: the hunk's lines widened by the user's edits
// that touch them. A resolved hunk counts as kept: the base takes the
// run's hunk (so it is no longer pending), the undo ledger records
// what landed in the file (an undo takes back the resolution, never the
// user's other typing), and the agent's news says how it was resolved.

// Resolution is how a keep resolves a chosen hunk that conflicts with
// the user's text.
type Resolution string

// The resolutions; ResolveNone leaves a conflicted hunk pending.
const (
	ResolveNone Resolution = ""
	// ResolveBoth writes the user's lines of the region, then the run's
	// (git's "union": two insertions at one place become both).
	ResolveBoth Resolution = "both"
	// ResolveTheirs keeps the user's text as it is: the hunk leaves the
	// set, and the model is told the user kept their own text over it.
	ResolveTheirs Resolution = "theirs"
	// ResolveRun replaces the region with the run's lines: the user's
	// changes inside it are replaced, nothing outside it.
	ResolveRun Resolution = "run"
	// ResolveMarkers writes git's conflict markers around the two sides,
	// for a merge tool or the editor's own conflict view.
	ResolveMarkers Resolution = "markers"
)

// Resolutions are the valid resolutions, in the order they are offered.
var Resolutions = []Resolution{ResolveBoth, ResolveTheirs, ResolveRun, ResolveMarkers}

// ParseResolution reads a resolution by its name; "" is ResolveNone.
// An unknown name is an error naming the valid ones.
func ParseResolution(name string) (Resolution, error) {
	if r := Resolution(name); r == ResolveNone || slices.Contains(Resolutions, r) {
		return r, nil
	}
	return ResolveNone, fmt.Errorf("unknown conflict resolution %q: valid are %s", name, resolutionNames())
}

// resolutionNames is "both, theirs, run or markers".
func resolutionNames() string {
	names := make([]string, len(Resolutions))
	for i, r := range Resolutions {
		names[i] = string(r)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Resolved is a conflicted hunk a keep resolved, and how. It is in
// KeepResult.Kept too.
type Resolved struct {
	Hunk string
	How  Resolution
}

// resolvedNews says for the agent how the user resolved what, what
// being describeHunk's phrase.
func resolvedNews(how Resolution, what string) string {
	switch how {
	case ResolveBoth:
		return "the user kept both their lines and " + what
	case ResolveTheirs:
		return "the user kept their own text over " + what
	case ResolveRun:
		return "the user took the run's " + what + " over their own changes there"
	case ResolveMarkers:
		return "the user wrote conflict markers for " + what + " (their lines and the run's are both in the file between <<<<<<< and >>>>>>>)"
	}
	return "the user kept " + what
}

// onlyWhole is what a whole-file conflict's reason adds when the keep
// asked for both or markers, which apply only to text hunks of a file
// that exists.
func onlyWhole(how Resolution, why, run string) string {
	return fmt.Sprintf("%s; %s applies only to text hunks of a file that exists: resolve this with theirs (keep yours, drop the run's change) or run (%s)", why, how, run)
}

// region is one conflicting region of a file and the chosen hunks in
// it.
type region struct {
	diff.Region
	hunks []int
}

// resolveText plans the resolution how of the conflicted hunks conf of
// f (indices, sorted) over cur, beside the clean hunks (indices and
// their edits moved over cur). It returns every edit of the file's
// keep, sorted, and the hunks each edit lands.
func (s *Set) resolveText(f File, base, cur []byte, clean []int, cleanEdits []diff.Edit, conf []int, how Resolution) ([]diff.Edit, [][]int) {
	var regions []region
	for _, h := range conf {
		regions = append(regions, region{diff.ConflictRegion(base, f.Hunks[h].Edit, cur), []int{h}})
	}
	// A clean hunk inside or touching a region joins it.
	var edits []diff.Edit
	var owners [][]int
	for i, h := range clean {
		e, me := f.Hunks[h].Edit, cleanEdits[i]
		j := slices.IndexFunc(regions, func(r region) bool { return e.Start <= r.BaseEnd && e.End >= r.BaseStart })
		if j < 0 {
			edits, owners = append(edits, me), append(owners, []int{h})
			continue
		}
		r := &regions[j]
		r.BaseStart, r.BaseEnd = min(r.BaseStart, e.Start), max(r.BaseEnd, e.End)
		r.CurStart, r.CurEnd = min(r.CurStart, me.Start), max(r.CurEnd, me.End)
		r.hunks = append(r.hunks, h)
	}
	slices.SortFunc(regions, func(a, b region) int { return a.BaseStart - b.BaseStart })
	var merged []region
	for _, r := range regions {
		if n := len(merged); n > 0 && r.BaseStart <= merged[n-1].BaseEnd {
			m := &merged[n-1]
			m.BaseEnd, m.CurEnd = max(m.BaseEnd, r.BaseEnd), max(m.CurEnd, r.CurEnd)
			m.hunks = append(m.hunks, r.hunks...)
			continue
		}
		merged = append(merged, r)
	}
	for _, r := range merged {
		slices.Sort(r.hunks)
		edits = append(edits, diff.Edit{Start: r.CurStart, End: r.CurEnd, NewText: s.regionText(f, base, cur, r, how)})
		owners = append(owners, r.hunks)
	}
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return edits[a].Start - edits[b].Start })
	sortedEdits, sortedOwners := make([]diff.Edit, len(edits)), make([][]int, len(edits))
	for i, k := range order {
		sortedEdits[i], sortedOwners[i] = edits[k], owners[k]
	}
	return sortedEdits, sortedOwners
}

// regionText is what r of the user's text becomes under how.
func (s *Set) regionText(f File, base, cur []byte, r region, how Resolution) string {
	user := string(cur[r.CurStart:r.CurEnd])
	var b strings.Builder
	pos := r.BaseStart
	for _, h := range r.hunks {
		e := f.Hunks[h].Edit
		b.Write(base[pos:e.Start])
		b.WriteString(e.NewText)
		pos = e.End
	}
	b.Write(base[pos:r.BaseEnd])
	run := b.String()
	switch how {
	case ResolveRun:
		return run
	case ResolveBoth:
		if user != "" && run != "" && !strings.HasSuffix(user, "\n") {
			user += "\n"
		}
		return user + run
	}
	var m strings.Builder
	if r.CurStart > 0 && cur[r.CurStart-1] != '\n' {
		m.WriteByte('\n')
	}
	m.WriteString("<<<<<<< yours\n")
	m.WriteString(endLine(user))
	m.WriteString("=======\n")
	m.WriteString(endLine(run))
	title := strings.Join(strings.Fields(s.Title()), " ")
	fmt.Fprintf(&m, ">>>>>>> run %s (%s)\n", s.RunID(), title)
	return m.String()
}

// endLine is s ending with a newline, unless empty.
func endLine(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// wholeChange is the change that makes the user's path what the run
// holds, over cur (exists says whether the path exists): the run's
// resolution of a whole-file conflict.
func wholeChange(f File, cur tools.Document, exists bool, after []byte) tools.Change {
	c := tools.Change{Path: f.Path, Label: "keep " + f.Path.Rel}
	switch {
	case f.Kind == KindDeleted:
		c.Base, c.Delete, c.Label = cur, true, "keep the deletion of "+f.Path.Rel
	case !exists:
		c.Create, c.After = true, after
		c.Edits = []tools.TextEdit{{NewText: string(after)}}
	default:
		c.Base, c.After = cur, after
		c.Edits = []tools.TextEdit{{Start: 0, End: len(cur.Content), NewText: string(after)}}
	}
	return c
}
