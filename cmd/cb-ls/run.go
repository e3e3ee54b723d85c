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

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/headless"
	"github.com/catbuddy/cb-ls/internal/session"
)

const runUsage = `usage: cb-ls run [flags] "instruction"
       cb-ls run --continue [runId] "reply"

Runs the agent against the files on disk: progress and diffs on stderr,
the final answer on stdout. Each run's conversation is stored for the
first root in the user's state directory (never in the project);
--continue sends a reply to the
project's last run (or the one named, from the editor or the command
line), with its whole history. Exit status 0 on success, 1 when the run
failed (bad key, unreachable model, step limit), 2 for bad usage,
130 when interrupted.

Changes: the run works in its own copy-on-write workspace (review
"pending", the default): its edits and what its commands write wait as
a change set, and the agent never waits. At the end, on a terminal, the
set is shown and asked about once (keep all, discard all, file by file,
hunk by hunk); --yes keeps it all; otherwise it stays pending for
"cb-ls changes" to show, keep or discard later. --review (or review
"before" in the settings, or no copy-on-write layer on this system)
asks before each change instead: on a terminal each diff is asked about
(y/n/a), and without one edits are refused unless --yes is given. A
file that runs later (.envrc, .vscode/tasks.json, .git/hooks, CI
workflows) is named in the question, or on stderr under --yes.

flags:
`

// runFlags are cb-ls run's flags.
type runFlags struct {
	roots    rootList
	mode     string
	provider string
	model    string
	baseURL  string
	maxSteps int
	yes      bool
	review   bool
	cont     continueFlag
	trust    bool
	servers  languageServerFlag
}

// runMain implements "cb-ls run": it parses the flags and hands the
// run to the headless front end.
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runAgent(ctx, args, stdin, stdout, stderr)
}

func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f runFlags
	fs := flag.NewFlagSet("cb-ls run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	fs.Var(&f.roots, "root", "workspace folder (repeatable; the first is the work root; default: the current directory)")
	fs.StringVar(&f.mode, "mode", "auto", "what the agent may touch: auto, project or internal")
	fs.StringVar(&f.provider, "provider", "", "openai (any OpenAI-compatible server) or anthropic; overrides CB_PROVIDER")
	fs.StringVar(&f.model, "model", "", "model name; overrides CB_MODEL")
	fs.StringVar(&f.baseURL, "base-url", "", "API base URL, e.g. http://127.0.0.1:11434/v1; overrides CB_BASE_URL")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "most model turns before the agent must summarise (default 30); overrides CB_MAX_STEPS")
	fs.BoolVar(&f.yes, "yes", false, "keep every change of the run without asking, and approve every command that asks for network access")
	fs.BoolVar(&f.review, "review", false, "review \"before\": ask before each change lands, and before a command writes, even when stdin is not a terminal")
	fs.BoolVar(&f.trust, "trust-project", false, "apply the project's .catbuddy settings that need trust (provider, baseUrl, looser tool settings) for this run")
	fs.Var(&f.servers, "language-server", languageServerUsage)
	fs.Var(&f.cont, "continue", "reply to the project's last run, or to the run named as --continue=ID or as the first argument")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := fs.Args()
	switch {
	case len(rest) == 0 && f.cont.set:
		fmt.Fprintln(stderr, `cb-ls run: missing the reply, e.g. cb-ls run --continue "now add a test"`)
		return 2
	case len(rest) == 0:
		fmt.Fprintln(stderr, `cb-ls run: missing the instruction, e.g. cb-ls run "fix the failing test in calc_test.go"`)
		return 2
	case f.yes && f.review:
		fmt.Fprintln(stderr, "cb-ls run: --yes and --review exclude each other")
		return 2
	case f.maxSteps < 0:
		fmt.Fprintln(stderr, "cb-ls run: --max-steps must be positive")
		return 2
	}
	mode, err := guard.ParseMode(f.mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: --mode: %v\n", err)
		return 2
	}
	return headless.Run(ctx, headless.Options{
		Roots: f.roots, Mode: mode,
		Over: config.Config{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, MaxSteps: f.maxSteps, LanguageServers: f.servers},
		Yes:  f.yes, Review: f.review, Terminal: stdinIsTerminal(stdin), Trust: f.trust,
		Continue: f.cont.set, ContinueID: f.cont.id, Args: rest, Version: version,
	}, stdin, stdout, stderr)
}

// stdinIsTerminal reports whether cb-ls run can ask on stdin. A variable
// so tests can drive the terminal prompt through a pipe.
var stdinIsTerminal = func(r io.Reader) bool { return headless.IsTerminal(r) }

// continueFlag is --continue: a boolean flag ("the project's last run")
// that also takes a run id as --continue=ID.
type continueFlag struct {
	set bool
	id  string
}

func (c *continueFlag) String() string { return c.id }

// IsBoolFlag lets --continue stand alone.
func (c *continueFlag) IsBoolFlag() bool { return true }

func (c *continueFlag) Set(v string) error {
	c.set = true
	switch v {
	case "true":
		c.id = ""
	case "false":
		c.set = false
	default:
		if err := session.CheckID(v); err != nil {
			return err
		}
		c.id = v
	}
	return nil
}
