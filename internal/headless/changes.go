package headless

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ChangesOptions are what cb-ls changes was asked for.
type ChangesOptions struct {
	// Roots are the workspace folders, as cb-ls run takes them; empty
	// means the current directory.
	Roots []string
	Mode  guard.Mode
	// Action is what to do with the changes named: show them (""),
	// keep them or discard them.
	Action ChangesAction
	// Diff shows every hunk whole (a listing cuts long ones).
	Diff bool
	// Conflicts is how a keep resolves the hunks that conflict with the
	// user's changes; ResolveNone leaves them pending.
	Conflicts changeset.Resolution
	// Args are the words after the flags: a run id first (optional:
	// a word the store knows as a run), then files. Each file must name
	// something pending (a file, a group, or a folder with pending
	// files beneath it).
	Args []string
}

// ChangesAction is what cb-ls changes does with the changes it names.
type ChangesAction string

// The actions of cb-ls changes.
const (
	ChangesShow    ChangesAction = ""
	ChangesKeep    ChangesAction = "keep"
	ChangesDiscard ChangesAction = "discard"
)

// Changes shows, keeps or discards a pending change set left by cb-ls
// run (or by the editor's or an ACP client's runs in the same folders)
// and returns the exit status: 0 done, 1 failed, something left pending
// by a keep, or a run or file named that has nothing pending; 2 bad
// usage, such as an action with several runs pending and none named.
func Changes(ctx context.Context, o ChangesOptions, stdout, stderr io.Writer) int {
	roots := o.Roots
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "cb-ls changes: current directory: %v\n", err)
			return 1
		}
		roots = []string{wd}
	}
	g, err := guard.New(roots, o.Mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return 2
	}
	store, err := changeset.Open(g, mcpLogger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return 1
	}
	for _, msg := range store.Legacy() {
		fmt.Fprintf(stderr, "cb-ls: %s\n", msg)
	}
	runID, names := splitRunID(store, o.Args)
	var set *changeset.Set
	pending := store.Pending()
	switch {
	case runID != "":
		s, _ := store.Get(runID)
		if len(s.Files()) == 0 {
			fmt.Fprintf(stderr, "cb-ls changes: run %s has no pending changes here\n", runID)
			return 1
		}
		set = s
	case looksLikeRunID(names) && !pendingSomewhere(g, pending, names[0]):
		fmt.Fprintf(stderr, "cb-ls changes: no run %s has pending changes here (and no file of that name is pending)\n", diff.QuoteName(names[0]))
		return 1
	case len(pending) == 0:
		if len(names) > 0 {
			fmt.Fprintf(stderr, "cb-ls changes: %s: nothing is pending here\n", diff.QuoteName(names[0]))
			return 1
		}
		fmt.Fprintln(stdout, "No pending changes.")
		return 0
	case len(pending) == 1:
		set = pending[0]
	default:
		return severalRuns(g, pending, o, names, stdout, stderr)
	}
	files, code := matchAll(g, set, names, stderr)
	if code != 0 {
		return code
	}
	switch o.Action {
	case ChangesKeep:
		return keepFiles(ctx, set, files, o.Conflicts, stdout, stderr)
	case ChangesDiscard:
		return discardFiles(set, files, stdout, stderr)
	}
	showSet(ctx, stdout, set, showOptions{Whole: o.Diff, Only: files})
	return 0
}

// severalRuns answers when more than one run has pending changes and
// none was named: two agents may share a checkout, so the newest run is
// never taken for the user's. A listing lists the runs (those with the
// files named, if any); an action is refused, asking for the run, even
// when only one of them has the files named: the run is named or
// nothing is done.
func severalRuns(g *guard.PathGuard, pending []*changeset.Set, o ChangesOptions, names []string, stdout, stderr io.Writer) int {
	runs := pending
	if len(names) > 0 {
		runs = nil
		for _, set := range pending {
			if files, _ := matchFiles(g, set, names); files != nil {
				runs = append(runs, set)
			}
		}
		for _, name := range names {
			if !pendingSomewhere(g, pending, name) {
				fmt.Fprintf(stderr, "cb-ls changes: %s has no pending change in any run here\n", diff.QuoteName(name))
				return 1
			}
		}
	}
	which := fmt.Sprintf("%d runs have pending changes here", len(pending))
	if len(names) > 0 {
		which = fmt.Sprintf("%d runs have pending changes here, %d of them to the files named", len(pending), len(runs))
	}
	if o.Action != ChangesShow {
		fmt.Fprintf(stderr, "cb-ls changes: %s; name the run to %s: cb-ls changes --%s RUNID [files…]\n", which, o.Action, o.Action)
		listRuns(stderr, runs)
		return 2
	}
	fmt.Fprintf(stdout, "%s (newest first); name one to see its changes: cb-ls changes RUNID\n", which)
	listRuns(stdout, runs)
	return 0
}

// listRuns prints one line per run: id, title, when it started, counts.
func listRuns(w io.Writer, runs []*changeset.Set) {
	for _, s := range runs {
		fmt.Fprintf(w, "  %s  %s  started %s  %d change(s) in %d file(s)\n",
			s.RunID(), diff.QuoteName(s.Title()), s.Started().Local().Format("2006-01-02 15:04"), s.Count(), len(s.Files()))
	}
}

// keepFiles keeps files of set (all of it when files is nil), the
// conflicts resolved as how says. A keep that left conflicts, asked to
// resolve none, names the flag that would.
func keepFiles(ctx context.Context, set *changeset.Set, files []changeset.File, how changeset.Resolution, stdout, stderr io.Writer) int {
	sel := selectionOf(files)
	sel.Conflicts = how
	res, err := set.Keep(ctx, sel, tools.DiskWorkspace{})
	keepReport(stdout, res)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return 1
	}
	if len(res.Left) == 0 {
		return 0
	}
	if how == changeset.ResolveNone && conflicted(set) {
		fmt.Fprintf(stdout, "resolve the conflicts with `cb-ls changes %s --keep --conflicts=both|theirs|run|markers` (both: your lines then the run's; theirs: yours stay; run: the run's replace yours; markers: git's conflict markers)\n", set.RunID())
	}
	return 1
}

// conflicted reports whether a hunk of set is pending with a conflict.
func conflicted(set *changeset.Set) bool {
	for _, f := range set.Files() {
		for _, h := range f.Hunks {
			if h.Conflict != "" {
				return true
			}
		}
	}
	return false
}

// discardFiles discards files of set (all of it when files is nil).
func discardFiles(set *changeset.Set, files []changeset.File, stdout, stderr io.Writer) int {
	ids, err := set.Discard(selectionOf(files))
	fmt.Fprintf(stdout, "discarded %d change(s) of run %s\n", len(ids), set.RunID())
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return 1
	}
	return 0
}
