package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/session"
)

const runUsage = `usage: cb-ls run [flags] "instruction"
       cb-ls run --continue [runId] "reply"

Runs the agent against the files on disk: progress and diffs on stderr,
the final answer on stdout. Each run's conversation is stored in
.catbuddy/sessions of the first root; --continue sends a reply to the
project's last run (or the one named, from the editor or the command
line), with its whole history. Exit status 0 on success, 1 when the run
failed (bad key, unreachable model, step limit), 2 for bad usage,
130 when interrupted.

Edits: on a terminal each diff is shown and asked about (y/n/a, a = yes
to every edit of this run); without a terminal edits are refused unless
--yes is given. A file that runs later (.envrc, .vscode/tasks.json,
.git/hooks, CI workflows) is named in the question, or on stderr under
--yes.

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

// runMain implements "cb-ls run".
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
	fs.BoolVar(&f.yes, "yes", false, "apply every edit without asking, and approve every command that asks for write or network access (without it and without a terminal, edits and such commands are refused)")
	fs.BoolVar(&f.review, "review", false, "ask before each edit even when stdin is not a terminal (on a terminal cb-ls run always asks)")
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
	roots := []string(f.roots)
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "cb-ls run: current directory: %v\n", err)
			return 1
		}
		roots = []string{wd}
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "cb-ls run: --root %s is not a directory\n", r)
			return 2
		}
	}
	// The guard is built before the configuration: --continue looks for
	// the run under its (resolved) roots.
	g, err := guard.New(roots, mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 2
	}
	var continued *session.Session
	if f.cont.set {
		if continued, rest, err = pickContinued(g.Roots(), f.cont, rest); err != nil {
			fmt.Fprintf(stderr, "cb-ls run: --continue: %v\n", err)
			return 1
		}
	}
	instruction := strings.TrimSpace(strings.Join(rest, " "))
	if instruction == "" {
		fmt.Fprintln(stderr, `cb-ls run: the instruction is empty, e.g. cb-ls run "fix the failing test in calc_test.go"`)
		return 2
	}
	flags := config.Config{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, MaxSteps: f.maxSteps, LanguageServers: f.servers}
	loaded, err := config.Load(config.LoadOptions{Root: g.Roots()[0], TrustProject: f.trust, Over: []config.Config{flags}})
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 2
	}
	if msg := loaded.IgnoredSummary(g.Roots()[0]); msg != "" {
		hint := ""
		if !loaded.Trusted {
			hint = "; run with --trust-project to apply them"
		}
		fmt.Fprintf(stderr, "cb-ls run: %s%s\n", msg, hint)
	}
	cfg := loaded.Config

	p := newProgress(stderr, isTerminalWriter(stderr), cfg.MaxSteps)
	ask := &prompter{in: bufio.NewReader(stdin), out: stderr, before: p.pause}
	ws := editWorkspace(f, stdinIsTerminal(stdin), ask)
	a, err := app.New(app.Options{Guard: g, Workspace: ws, Approver: execApprover(f.yes, stdin, ask),
		LanguageServers: cfg.LanguageServers,
		ProjectTrusted:  projectTrust(f.trust, stderr), Headless: true, Version: version, Logger: mcpLogger(stderr)})
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 1
	}
	defer a.Close()
	a.StartMCP(flags)
	for _, s := range a.WaitMCP(ctx, mcpStartTimeout) {
		fmt.Fprintf(stderr, "cb-ls run: MCP server %q is %s%s: its tools are missing from this run\n", s.Name, s.State, errSuffix(s.Error))
	}

	var run *app.Run
	if continued != nil {
		fmt.Fprintf(stderr, "cb-ls run: continuing %s (%s, %d turn(s))\n", continued.RunID, continued.TitleText(), continued.Turns)
		run = app.ResumeRun(continued)
	} else {
		run = headlessRun(g.Roots()[0], instruction, cfg)
	}
	run.Begin()
	p.start(cfg)
	res := a.Do(ctx, run, app.Turn{Config: cfg, Task: agent.Task{Command: config.CommandRun, Input: instruction},
		Input: instruction, Emit: p.event})
	p.done()
	if yw, ok := ws.(*yesWorkspace); ok {
		yw.summary(stderr)
	}
	reportStored(stderr, run, res)
	if res.Answer != "" {
		fmt.Fprintln(stdout, strings.TrimSpace(res.Answer))
	}
	switch {
	case res.Err == nil:
		fmt.Fprintf(stderr, "done in %d steps (%s)\n", res.Steps, res.Usage)
		return 0
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "cb-ls run: interrupted")
		return 130
	case errors.Is(res.Err, agent.ErrStepLimit):
		fmt.Fprintf(stderr, "cb-ls run: stopped at the step limit (%d); raise it with --max-steps\n", cfg.MaxSteps)
		return 1
	}
	fmt.Fprintf(stderr, "cb-ls run: %v\n", res.Err)
	return 1
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
