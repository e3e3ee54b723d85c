package headless

import (
	"fmt"
	"io"
	"strings"

	"github.com/catbuddy/cb-ls/internal/changeset"
)

// showSet prints a change set as the user reviews it: each file with
// its kind, then each hunk with its ID, its lines and its text as a
// diff ("-" the user's, "+" the run's). A group of ignored outputs is
// one line with its count.
func showSet(w io.Writer, set *changeset.Set) {
	files := set.Files()
	fmt.Fprintf(w, "Run %s (%s): %d pending change(s) in %d file(s)\n", set.RunID(), set.Title(), set.Count(), len(files))
	for _, f := range files {
		showFile(w, f)
	}
}

// showFile prints one pending file.
func showFile(w io.Writer, f changeset.File) {
	if f.Group != nil {
		fmt.Fprintf(w, "\n%s/ (%s, %d files; kept or discarded as a whole) [%s]\n", f.Path.Rel, f.Kind, f.Group.Count, f.Group.ID)
		showNotes(w, f)
		return
	}
	fmt.Fprintf(w, "\n%s (%s)\n", f.Path.Rel, f.Kind)
	showNotes(w, f)
	for _, h := range f.Hunks {
		showHunk(w, h)
	}
}

// showNotes prints why f runs later and why keep refuses it. A
// whole-file item's one hunk carries its description as its label
// ("big.bin: 2.0 GB, whole file") and no text.
func showNotes(w io.Writer, f changeset.File) {
	if f.RunsLater != "" {
		fmt.Fprintf(w, "   (runs later: %s)\n", f.RunsLater)
	}
	if f.KeepRefused != "" {
		fmt.Fprintf(w, "   (%s)\n", f.KeepRefused)
	}
}

// showHunk prints one hunk.
func showHunk(w io.Writer, h changeset.Hunk) {
	fmt.Fprintf(w, "@@ %s [%s]\n", h.Label, h.ID)
	if h.Conflict != "" {
		fmt.Fprintf(w, "   (left pending: %s)\n", h.Conflict)
	}
	writeLines(w, "-", h.OldText)
	writeLines(w, "+", h.NewText)
}

// writeLines prints text line by line behind prefix, at most 40 lines.
func writeLines(w io.Writer, prefix, text string) {
	if text == "" {
		return
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	const most = 40
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(w, "%s… (%d more lines)\n", prefix, len(lines)-most)
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
	for _, l := range res.Left {
		fmt.Fprintf(w, "left pending %s: %s\n", l.Hunk, l.Reason)
	}
}
