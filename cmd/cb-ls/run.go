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

	"github.com/catbuddy/cb-ls/agent"
	"github.com/catbuddy/cb-ls/guard"
	"github.com/catbuddy/cb-ls/tools"
)

const runUsage = `usage: cb-ls run [flags] "instruction"

Runs the agent against the files on disk: progress and diffs on stderr,
the final answer on stdout. Exit status 0 on success, 1 when the run
failed (bad key, unreachable model, step limit), 2 for bad usage,
130 when interrupted.

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
	fs.BoolVar(&f.yes, "yes", false, "apply every edit without asking (the default)")
	fs.BoolVar(&f.review, "review", false, "ask y/n on the terminal before each edit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	instruction := strings.TrimSpace(strings.Join(fs.Args(), " "))
	switch {
	case instruction == "":
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
	g, err := guard.New(roots, mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 2
	}
	cfg, err := agent.LoadConfig(g.Roots()[0], agent.Config{
		Provider: f.provider, Model: f.model, BaseURL: f.baseURL, MaxSteps: f.maxSteps,
	})
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 2
	}

	p := newProgress(stderr, isTerminalWriter(stderr), cfg.MaxSteps)
	var ws tools.Workspace = tools.DiskWorkspace{}
	if f.review {
		ws = &reviewWorkspace{Workspace: ws, in: bufio.NewReader(stdin), out: stderr, before: p.pause}
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterBuiltins(reg, &tools.ToolContext{Guard: g, Workspace: ws, Options: cfg.ToolOptions()}); err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 1
	}
	runner := &agent.Runner{Registry: reg, Config: cfg, WorkRoot: g.WorkRoot}
	p.start(cfg)
	out, err := runner.Run(ctx, agent.Task{Command: agent.CommandAsk, Input: instruction}, p.event)
	p.done()
	if out.Answer != "" {
		fmt.Fprintln(stdout, strings.TrimSpace(out.Answer))
	}
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "done in %d steps (%d input, %d output tokens)\n", out.Steps, out.Usage.InputTokens, out.Usage.OutputTokens)
		return 0
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "cb-ls run: interrupted")
		return 130
	case errors.Is(err, agent.ErrStepLimit):
		fmt.Fprintf(stderr, "cb-ls run: stopped at the step limit (%d); raise it with --max-steps\n", cfg.MaxSteps)
		return 1
	}
	fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
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
