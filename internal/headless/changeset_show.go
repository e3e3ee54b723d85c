package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// showOptions say how a set is shown.
type showOptions struct {
	// Whole shows every hunk whole (cb-ls changes --diff); otherwise a
	// long side of a hunk is cut after cutLines lines, and the cut line
	// says how to see it whole.
	Whole bool
	// Only, when set, limits the listing to these files (the files
	// named on the command line).
	Only []changeset.File
}

// cutLines is how many lines of each side of a hunk a listing shows
// before it cuts the rest (--diff shows them all).
const cutLines = 40

// showSet prints a change set as the user reviews it: each file with
// its kind, then each hunk with its ID, its lines and its text as a
// diff ("-" the user's, "+" the run's). A group of ignored outputs is
// one line with its count. Every name is quoted (diff.QuoteName): a
// name with an escape sequence or a newline must not rewrite the
// listing being reviewed.
func showSet(ctx context.Context, w io.Writer, set *changeset.Set, o showOptions) {
	files := set.Files()
	fmt.Fprintf(w, "Run %s (%s): %d pending change(s) in %d file(s)\n", set.RunID(), diff.QuoteName(set.Title()), set.Count(), len(files))
	if o.Only != nil {
		files = o.Only
	}
	for _, f := range files {
		showFile(ctx, w, set, f, o.Whole)
	}
}

// showFile prints one pending file. A group of one file (an ignored
// file a command wrote: Cargo.lock) is shown as the file, never as a
// folder.
func showFile(ctx context.Context, w io.Writer, set *changeset.Set, f changeset.File, whole bool) {
	name := diff.QuoteName(f.Path.Rel)
	if f.Group != nil {
		if groupIsFile(ctx, set, f) {
			fmt.Fprintf(w, "\n%s (%s; ignored, kept or discarded whole) [%s]\n", name, f.Kind, f.Group.ID)
		} else {
			fmt.Fprintf(w, "\n%s/ (%s, %s; kept or discarded as a whole) [%s]\n", name, f.Kind, plural(f.Group.Count, "file", "files"), f.Group.ID)
		}
		showNotes(w, f)
		return
	}
	fmt.Fprintf(w, "\n%s (%s)\n", name, f.Kind)
	showNotes(w, f)
	for _, h := range f.Hunks {
		showHunk(w, set.RunID(), f.Path.Rel, h, whole)
	}
}

// showNotes prints why f runs later and why keep refuses it. A
// whole-file item's one hunk carries its description as its label
// ("big.bin: 2.0 GB, whole file") and no text.
func showNotes(w io.Writer, f changeset.File) {
	if f.RunsLater != "" {
		fmt.Fprintf(w, "   (runs later: %s)\n", diff.QuoteName(f.RunsLater))
	}
	if f.KeepRefused != "" {
		fmt.Fprintf(w, "   (%s)\n", diff.QuoteName(f.KeepRefused))
	}
}

// groupIsFile reports whether group f is one file rather than a
// directory: changeset groups an ignored file on its own under its own
// path. The run's view of the path tells: a file the run wrote reads
// from its layer; a directory is a directory on disk, or (made by the
// command) nothing at all.
func groupIsFile(ctx context.Context, set *changeset.Set, f changeset.File) bool {
	if f.Group == nil || f.Group.Count != 1 {
		return false
	}
	_, err := set.Workspace(tools.DiskWorkspace{}).Read(ctx, f.Path)
	switch {
	case err == nil:
		return true
	case errors.Is(err, tools.ErrNotExist) && f.Kind != changeset.KindDeleted:
		return false // a directory the command made
	}
	fi, statErr := os.Lstat(f.Path.Abs)
	return statErr == nil && !fi.IsDir()
}

// showHunk prints one hunk, each side cut after cutLines lines unless
// whole.
func showHunk(w io.Writer, runID, rel string, h changeset.Hunk, whole bool) {
	fmt.Fprintf(w, "@@ %s [%s]\n", quoteLabel(h.Label, rel), h.ID)
	if h.Conflict != "" {
		fmt.Fprintf(w, "   (left pending: %s)\n", diff.QuoteName(h.Conflict))
	}
	most := cutLines
	if whole {
		most = -1
	}
	writeLines(w, "-", h.OldText, most, runID)
	writeLines(w, "+", h.NewText, most, runID)
}

// quoteLabel is a hunk's label ("calc.go: lines 40–44") with its file's
// name quoted as diff.QuoteName quotes it.
func quoteLabel(label, rel string) string {
	if rest, ok := strings.CutPrefix(label, rel); ok {
		return diff.QuoteName(rel) + diff.QuoteName(rest)
	}
	return diff.QuoteName(label)
}

// writeLines prints text line by line behind prefix, at most most lines
// (all when most < 0); the line that cuts says how to see the rest.
func writeLines(w io.Writer, prefix, text string, most int, runID string) {
	if text == "" {
		return
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(w, "%s… (%d more lines; `cb-ls changes %s --diff` shows every hunk whole)\n", prefix, len(lines)-most, runID)
			break
		}
		if !strings.HasSuffix(l, "\n") {
			l += "\n\\ No newline at end of file\n"
		}
		fmt.Fprint(w, prefix+l)
	}
}

// keepReport prints what a keep did.
func keepReport(w io.Writer, res changeset.KeepResult) {
	if len(res.Kept) > 0 {
		fmt.Fprintf(w, "kept %d change(s)\n", len(res.Kept))
	}
	for _, r := range res.Resolved {
		fmt.Fprintf(w, "resolved %s: %s\n", r.Hunk, resolvedPhrase(r.How))
	}
	for _, l := range res.Left {
		fmt.Fprintf(w, "left pending %s: %s\n", l.Hunk, diff.QuoteName(l.Reason))
	}
}

// resolvedPhrase says what a resolution left in the file.
func resolvedPhrase(how changeset.Resolution) string {
	switch how {
	case changeset.ResolveBoth:
		return "both (your lines, then the run's)"
	case changeset.ResolveTheirs:
		return "theirs (your text stays; the run's hunk is dropped)"
	case changeset.ResolveRun:
		return "run (the run's lines replace yours there)"
	case changeset.ResolveMarkers:
		return "markers (conflict markers written; edit them out)"
	}
	return string(how)
}

// plural is "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
