package headless

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ChangesOptions are what cb-ls changes was asked for.
type ChangesOptions struct {
	// Roots are the workspace folders, as cb-ls run takes them; empty
	// means the current directory.
	Roots []string
	Mode  guard.Mode
	// RunID names the run; empty means the newest with pending changes.
	RunID string
	// Keep or Discard the Files named (all of the set when none); with
	// neither, the set is shown.
	Keep, Discard bool
	Files         []string
}

// Changes shows, keeps or discards a pending change set left by cb-ls
// run (or by the editor's or an ACP client's runs in the same folders)
// and returns the exit status: 0 done, 1 failed or something left
// pending by a keep, 2 bad usage.
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
	pending := store.Pending()
	if _, ok := store.Get(o.RunID); o.RunID != "" && !ok {
		// Not a run: a file of the newest run named first.
		o.Files, o.RunID = append([]string{o.RunID}, o.Files...), ""
	}
	var set *changeset.Set
	switch {
	case o.RunID != "":
		s, ok := store.Get(o.RunID)
		if !ok || len(s.Files()) == 0 {
			fmt.Fprintf(stderr, "cb-ls changes: run %s has no pending changes here\n", o.RunID)
			return 1
		}
		set = s
	case len(pending) == 0:
		fmt.Fprintln(stdout, "No pending changes.")
		return 0
	default:
		set = pending[0]
	}
	if !o.Keep && !o.Discard {
		if o.RunID == "" && len(pending) > 1 {
			fmt.Fprintf(stdout, "%d runs have pending changes (newest first):", len(pending))
			for _, s := range pending {
				fmt.Fprintf(stdout, " %s", s.RunID())
			}
			fmt.Fprintln(stdout)
		}
		showSet(stdout, set)
		return 0
	}
	var sel changeset.Selection
	for _, name := range o.Files {
		p, err := g.Resolve(name)
		if err != nil {
			fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
			return 2
		}
		if !inSet(set, p) {
			fmt.Fprintf(stderr, "cb-ls changes: %s has no pending change in run %s\n", name, set.RunID())
			return 2
		}
		sel.Files = append(sel.Files, p)
	}
	if o.Discard {
		ids, err := set.Discard(sel)
		fmt.Fprintf(stdout, "discarded %d change(s) of run %s\n", len(ids), set.RunID())
		if err != nil {
			fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
			return 1
		}
		return 0
	}
	res, err := set.Keep(ctx, sel, tools.DiskWorkspace{})
	keepReport(stdout, res)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n", err)
		return 1
	}
	if len(res.Left) > 0 {
		return 1
	}
	return 0
}

// inSet reports whether p is one of set's pending files (or groups).
func inSet(set *changeset.Set, p guard.Path) bool {
	for _, f := range set.Files() {
		if f.Path.Abs == p.Abs {
			return true
		}
	}
	return false
}
