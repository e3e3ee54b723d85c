package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/headless"
)

const changesUsageLine = "usage: cb-ls changes [runId] [files…] [--keep [--conflicts=both|theirs|run|markers] | --discard] [--diff] [--root DIR]… [--mode MODE]"

const changesUsage = changesUsageLine + `

Shows, keeps or discards a run's pending changes: what cb-ls run (or a
run in the editor) changed, held apart from your files until you keep
it. Flags may come before or after the words; "--" ends the flags.

runId names the run. Without it, the one run with pending changes; when
several runs have them (two agents in one checkout), a listing lists the
runs and --keep or --discard asks for the run. Each file names a pending
file, a group (node_modules) or a folder with pending files beneath it;
one that names nothing pending is an error. Without files, every
pending change of the run. A listing cuts a long hunk; --diff shows
every hunk whole.

A hunk whose lines you changed since the run made it is a conflict: a
plain --keep leaves it pending. --keep --conflicts=HOW resolves each
one it keeps: both (your lines, then the run's), theirs or yours (your
text stays; the run's hunk is dropped), run (the run's lines replace
yours there) or markers (git's conflict markers around the two, for
your merge tool). A file you deleted, a file you created where the run
did, or a deletion of a file you changed resolves only as theirs or run.

Exit status 0 done, 1 failed, a run or file named has nothing pending,
or a keep left something pending (a conflict with your own changes,
named), 2 bad usage.

flags:
`

// changesFlags are cb-ls changes's flags. The actions exclude each
// other: each is an actionFlag, so another action is one more line in
// changesMain.
type changesFlags struct {
	roots     rootList
	mode      string
	diff      bool
	conflicts string
	action    headless.ChangesAction
	// actionName is the flag that set action, for the message when a
	// second one is given.
	actionName string
}

// actionFlag is one action of cb-ls changes (--keep, --discard), a
// boolean flag that sets changesFlags.action.
type actionFlag struct {
	f      *changesFlags
	name   string
	action headless.ChangesAction
}

func (a actionFlag) String() string   { return "" }
func (a actionFlag) IsBoolFlag() bool { return true }

func (a actionFlag) Set(v string) error {
	if v != "true" {
		return fmt.Errorf("--%s takes no value", a.name)
	}
	if a.f.action != headless.ChangesShow && a.f.action != a.action {
		return fmt.Errorf("--%s and --%s exclude each other", a.f.actionName, a.name)
	}
	a.f.action, a.f.actionName = a.action, a.name
	return nil
}

// changesMain implements "cb-ls changes".
func changesMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var f changesFlags
	fs := flag.NewFlagSet("cb-ls changes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // an error prints the usage line; -h the whole help
	fs.Var(&f.roots, "root", "workspace folder, as cb-ls run takes it (repeatable; default: the current directory)")
	fs.StringVar(&f.mode, "mode", "auto", "what the agent could touch: auto, project or internal (as the run had it)")
	fs.Var(actionFlag{&f, "keep", headless.ChangesKeep}, "keep", "apply the pending changes (of the files named, or all) to your files")
	fs.Var(actionFlag{&f, "discard", headless.ChangesDiscard}, "discard", "drop the pending changes (of the files named, or all)")
	fs.BoolVar(&f.diff, "diff", false, "show every hunk whole (a listing cuts long ones)")
	fs.StringVar(&f.conflicts, "conflicts", "", "with --keep: resolve the hunks that conflict with your changes as both, theirs (or yours), run or markers")
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, changesUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, changesUsageLine)
		return 2
	}
	if f.diff && f.action != headless.ChangesShow {
		fmt.Fprintf(stderr, "cb-ls changes: --diff shows the changes; it does not go with --%s\n%s\n", f.actionName, changesUsageLine)
		return 2
	}
	how, err := parseConflicts(f.conflicts, f.action)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: %v\n%s\n", err, changesUsageLine)
		return 2
	}
	m, err := guard.ParseMode(f.mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: --mode: %v\n", err)
		return 2
	}
	return headless.Changes(ctx, headless.ChangesOptions{Roots: f.roots, Mode: m, Action: f.action, Diff: f.diff, Conflicts: how, Args: words}, stdout, stderr)
}

// parseConflicts reads --conflicts, which only a keep takes; "yours"
// is theirs (the user's own text), as a person at a terminal says it.
func parseConflicts(v string, action headless.ChangesAction) (changeset.Resolution, error) {
	if v == "" {
		return changeset.ResolveNone, nil
	}
	if action != headless.ChangesKeep {
		return changeset.ResolveNone, fmt.Errorf("--conflicts says how a keep resolves conflicts; it goes with --keep")
	}
	if v == "yours" {
		v = string(changeset.ResolveTheirs)
	}
	how, err := changeset.ParseResolution(v)
	if err != nil {
		return changeset.ResolveNone, fmt.Errorf("--conflicts: %v (yours is theirs)", err)
	}
	return how, nil
}

// parseInterspersed parses fs's flags wherever they stand among the
// words ("cb-ls changes r1a2b3c4 --keep" keeps, as "--keep r1a2b3c4"
// does) and returns the words in order. After "--" everything is a
// word, so a file whose name begins with "-" can still be named.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(words, rest...), nil
		}
		if len(rest) == 0 {
			return words, nil
		}
		words, args = append(words, rest[0]), rest[1:]
	}
}
