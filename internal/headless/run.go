package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/session"
)

// Options are what cb-ls run was asked for, its flags already parsed.
type Options struct {
	// Roots are the workspace folders; the first is the work root.
	// Empty means the current directory.
	Roots []string
	Mode  guard.Mode
	// Over holds the settings given on the command line (provider,
	// model, base URL, step limit, language servers): they win over
	// the environment and the config files.
	Over config.Config
	// Yes writes every edit and approves every command without asking;
	// Review asks before each edit even when stdin is not a terminal.
	Yes, Review bool
	// Terminal reports that stdin is a terminal to ask on.
	Terminal bool
	// Trust applies the project's settings that need trust, for this run.
	Trust bool
	// Continue replies to a stored run: ContinueID, or the one the first
	// argument names, or the project's last.
	Continue   bool
	ContinueID string
	// Args are the instruction (or the reply), word by word.
	Args []string
	// Version is the binary's, for the model's environment.
	Version string
}

// Run runs the agent headless as o says, with progress and diffs on
// stderr and the answer on stdout, and returns the exit status: 0 on
// success, 1 when the run failed, 2 for bad usage, 130 when interrupted.
func Run(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) int {
	rest := o.Args
	roots := o.Roots
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
	g, err := guard.New(roots, o.Mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 2
	}
	var continued *session.Session
	if o.Continue {
		if continued, rest, err = pickContinued(g.Roots(), o.ContinueID, rest); err != nil {
			fmt.Fprintf(stderr, "cb-ls run: --continue: %v\n", err)
			return 1
		}
	}
	instruction := strings.TrimSpace(strings.Join(rest, " "))
	if instruction == "" {
		fmt.Fprintln(stderr, `cb-ls run: the instruction is empty, e.g. cb-ls run "fix the failing test in calc_test.go"`)
		return 2
	}
	loaded, err := config.Load(config.LoadOptions{Root: g.Roots()[0], TrustProject: o.Trust, Over: []config.Config{o.Over}})
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
	if o.Review {
		cfg.Review = config.ReviewBefore // --review: each change asked before it lands
	}

	p := newProgress(stderr, IsTerminal(stderr), cfg.MaxSteps)
	ask := &prompter{in: bufio.NewReader(stdin), out: stderr, before: p.pause}
	ws := editWorkspace(o, o.Terminal, ask)
	a, err := app.New(app.Options{Guard: g, Workspace: ws, Approver: execApprover(o.Yes, o.Terminal, ask),
		LanguageServers: cfg.LanguageServers, OnLanguageStatus: p.language,
		ProjectTrusted: projectTrust(o.Trust, stderr), Headless: true, Pending: true, Version: o.Version, Logger: mcpLogger(stderr)})
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls run: %v\n", err)
		return 1
	}
	defer a.Close()
	a.StartMCP(o.Over)
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
	if res.ReviewNote != "" {
		fmt.Fprintf(stderr, "cb-ls run: %s\n", res.ReviewNote)
	}
	if msg := finishSet(ctx, o, run.Changes, ask, ws, stderr); msg != "" {
		fmt.Fprintf(stderr, "cb-ls run: the change set: %s\n", msg)
	}
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
