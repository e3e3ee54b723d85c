package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/headless"
)

const changesUsage = `usage: cb-ls changes [flags] [runId] [files…]

Shows, keeps or discards a run's pending changes: what cb-ls run (or a
run in the editor) changed, held apart from your files until you keep
it. Without runId, the newest run with pending changes. Without files,
every pending change of the run. Exit status 0 done, 1 failed or a keep
left something pending (a conflict with your own changes, named), 2 bad
usage.

`

// changesMain implements "cb-ls changes".
func changesMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var roots rootList
	var mode string
	var keep, discard bool
	fs := flag.NewFlagSet("cb-ls changes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, changesUsage); fs.PrintDefaults() }
	fs.Var(&roots, "root", "workspace folder, as cb-ls run takes it (repeatable; default: the current directory)")
	fs.StringVar(&mode, "mode", "auto", "what the agent could touch: auto, project or internal (as the run had it)")
	fs.BoolVar(&keep, "keep", false, "apply the pending changes (of the files named, or all) to your files")
	fs.BoolVar(&discard, "discard", false, "drop the pending changes (of the files named, or all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if keep && discard {
		fmt.Fprintln(stderr, "cb-ls changes: --keep and --discard exclude each other")
		return 2
	}
	m, err := guard.ParseMode(mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls changes: --mode: %v\n", err)
		return 2
	}
	rest := fs.Args()
	o := headless.ChangesOptions{Roots: roots, Mode: m, Keep: keep, Discard: discard}
	// A run id (r1a2b3c4d) has no separator and no dot; a file named
	// so is told apart by headless.Changes (no such run).
	if len(rest) > 0 && !strings.ContainsAny(rest[0], `/\.`) {
		o.RunID, rest = rest[0], rest[1:]
	}
	o.Files = rest
	return headless.Changes(ctx, o, stdout, stderr)
}
