package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/snapshot"
)

//go:embed exec.md
var execDescription string

// ExecOptions tune the exec tool; zero values mean the defaults.
type ExecOptions struct {
	// Timeout is the default per command (120 s).
	Timeout time.Duration
	// MaxTimeout caps what the model may ask for (10 min).
	MaxTimeout time.Duration
	// MaxOutput caps the captured output in bytes (30 000); the head and
	// tail are kept.
	MaxOutput int
	// DrainWait bounds the wait for a command's last output once its
	// shell has ended or was killed (2 s): a process that left the
	// process group may hold the pipe. (A timed-out or cancelled
	// command gets SIGKILL at once; see shell.Run.)
	DrainWait time.Duration
	// NoSandbox turns confinement off: commands run with the server's
	// rights.
	NoSandbox bool
	// WritableDirs are extra directories a confined command may write
	// (besides its private TMPDIR and build cache, and the workspace when
	// its policy says so).
	WritableDirs []string
	// Env names variables (or prefixes, "FOO_*") a command inherits
	// beyond the built-in allow-list; from the user's tools.execEnv.
	Env []string
	// Approval is tools.exec.approval: ApprovalAsk (""), ApprovalReadOnly
	// or ApprovalAllowAll.
	Approval string
	// Allow are allow rules: whole-word command prefixes ("go generate")
	// that get write and network access without a question. They come
	// from the user's config or the editor, never from a project.
	Allow []string
	// Deny are refusal rules, from any config: a command line with a
	// simple command starting with one is refused.
	Deny []string
}

// SandboxInfo reports how commands run with these options: unconfined
// when the user turned the sandbox off, else what the system offers.
func (o ExecOptions) SandboxInfo() sandbox.Info {
	if o.NoSandbox {
		return sandbox.Info{Summary: "off (disabled in configuration)"}
	}
	return sandbox.Probe()
}

func (o ExecOptions) withDefaults() ExecOptions {
	if o.Timeout <= 0 {
		o.Timeout = 120 * time.Second
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = 10 * time.Minute
	}
	if o.Timeout > o.MaxTimeout {
		o.Timeout = o.MaxTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 30000
	}
	if o.DrainWait <= 0 {
		o.DrainWait = 2 * time.Second
	}
	return o
}

type execInput struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
	Write   bool   `json:"write,omitempty"`
	Network bool   `json:"network,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

var sandboxLogOnce sync.Once

// Exec runs a shell command in the workspace, behind the command guard
// and, where the kernel has it, inside a Landlock sandbox.
func Exec(tc *ToolContext) Tool {
	t := NewTool("exec", execDescription, func(ctx context.Context, in execInput) (Result, error) {
		return runExec(ctx, tc, in)
	})
	t.Describe = tc.describeExec
	return t
}

func runExec(ctx context.Context, tc *ToolContext, in execInput) (Result, error) {
	opts := tc.options(ctx).Exec.withDefaults()
	if strings.TrimSpace(in.Command) == "" {
		return Errorf("command is empty"), nil
	}
	cwd := tc.WorkRoot()
	if in.Cwd != "" {
		p, err := tc.Resolve(in.Cwd)
		if err != nil {
			return Errorf("cwd: %v", err), nil
		}
		cwd = p.Abs
	}
	if cwd == "" {
		return Errorf("no workspace folder is open to run the command in"), nil
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return Errorf("cwd %s is not a directory", cwd), nil
	}
	home, _ := os.UserHomeDir()
	// The guard reads the line in the language of the shell that runs
	// it: bash where installed, else /bin/sh read as POSIX sh.
	sh := hostShell()
	cg := &guard.CommandGuard{
		Roots:    tc.Guard.Roots(),
		WorkRoot: tc.WorkRoot(),
		Home:     home,
		URL:      &guard.URLGuard{Allow: tc.options(ctx).Web.Allow},
		Dialect:  guard.DialectPOSIX,
	}
	if sh.Bash {
		cg.Dialect = guard.DialectBash
	}
	v, layered := RunViewFrom(ctx)
	// Over the run's layer a deletion in the workspace is pending, not
	// done: `rm -rf ./*` is the user's to keep or discard. Not for a
	// command with the network, which reaches beyond what can be taken
	// back, nor where there is no layer (then nothing runs anyway).
	cg.Layered = layered && v.Layer != nil && opts.SandboxInfo().Overlay && !in.Network
	if err := cg.Check(in.Command, cwd); err != nil {
		return Errorf("%v", err), nil
	}
	if layered {
		return tc.execOverLayer(ctx, v.Layer, in, sh, cwd, opts)
	}
	grant, refusal, err := tc.decideExec(ctx, in, cwd, opts.SandboxInfo().Full)
	if err != nil {
		return Result{}, err
	}
	if refusal != "" {
		return Errorf("%s", refusal), nil
	}
	timeout := in.timeout(opts)
	var before snapshot.Scan
	if grant.Write {
		// Inside a run the scan also keeps the files' content, so the
		// run's undo can put back what the command changes.
		var keep *snapshot.Budget
		if filestate.LedgerFromContext(ctx) != nil {
			keep = snapshot.NewBudget()
		}
		before = snapshot.Take(ctx, tc.scanRoots(), keep)
		// A partial scan would report every file it missed as created
		// (and the undo would delete them): run nothing instead.
		if err := before.Err(); err != nil {
			return Errorf("nothing ran: the workspace could not be scanned before the command, so its changes could not be reported or undone (%v)", err), nil
		}
	}
	var checks map[string][]Diagnostic
	if grant.Write {
		checks = tc.execChecksBefore(ctx) // what the command's changes are compared with
	}
	r, err := runConfined(ctx, tc, sh, in.Command, cwd, timeout, grant.policy(in.Command))
	if grant.How != "" {
		r.Output += " [" + grant.How + "]"
	}
	if grant.Write && r.Output != "" {
		// Even a cancelled command may have changed files.
		report, changes := tc.reportChanges(context.WithoutCancel(ctx), in.Command, before)
		r.Output += "\n" + report
		if len(changes) > 0 && ctx.Err() == nil {
			if checked := tc.execDiskChecksReport(ctx, changes, checks); checked != "" {
				r.Output += "\n\n" + checked
			}
		}
	}
	return r, err
}

// hostShell is the shell commands run in here: bash where it is on
// PATH, else /bin/sh.
func hostShell() shell.Interpreter {
	return shell.FindInterpreter(os.Getenv("PATH"))
}

// runConfined runs line with sh -c in cwd, confined by policy (when the
// sandbox is on), and formats the result the model sees: output, exit
// status, duration and what the sandbox enforced.
func runConfined(ctx context.Context, tc *ToolContext, sh shell.Interpreter, line, cwd string, timeout time.Duration, policy sandbox.Policy) (Result, error) {
	return runConfinedOver(ctx, tc, sh, line, cwd, timeout, policy, nil)
}

// runConfinedOver is runConfined over the copy-on-write layers overlay
// (none: the folders themselves).
func runConfinedOver(ctx context.Context, tc *ToolContext, sh shell.Interpreter, line, cwd string, timeout time.Duration, policy sandbox.Policy, overlay []sandbox.OverlayLayer) (Result, error) {
	opts := tc.options(ctx).Exec.withDefaults()
	var (
		out  *shell.Output
		res  shell.Result
		note string
		sb   *sandbox.Run
		cold string // why the Go build cache started cold
		// interrupted tells of an earlier command cut off by a machine stop.
		interrupted string
	)
	run, watch := sh.Watch(line)
	scratch := tc.scratchDir(ctx)
	for attempt := 0; ; attempt++ {
		var cmd *exec.Cmd
		var n string
		var err error
		cmd, sb, n, err = prepareCommand(tc, opts, sh.Argv(run), cwd, policy, overlay, scratch)
		if errors.Is(err, sandbox.ErrLayerInterrupted) && attempt == 0 {
			// The machine stopped during an earlier command over the
			// run's layer: its changes are pending like any other, for
			// the user to review; the model is told, and this one runs.
			for _, l := range overlay {
				_ = l.ClearInterrupted()
			}
			interrupted = "[the machine stopped during an earlier command of this run: what that command wrote may be incomplete]\n"
			cmd, sb, n, err = prepareCommand(tc, opts, sh.Argv(run), cwd, policy, overlay, scratch)
		}
		if err != nil {
			return Errorf("prepare sandbox: %v", err), nil
		}
		note = n
		out = shell.NewOutput(opts.MaxOutput)
		watch.Attach(out)
		res, err = shell.Run(ctx, cmd, out, timeout, opts.DrainWait)
		if sb != nil {
			cold = sb.GoCacheCold()
			sb.Cleanup()
		}
		if err != nil {
			return Errorf("start %q: %v", line, err), nil
		}
		if len(overlay) > 0 && sb.LayerFailed(res.ExitCode, out.String()) {
			// Never again without the layer: the command would see a
			// workspace without the run's pending changes.
			return Errorf("nothing ran: the run's copy-on-write layer could not be mounted:\n%s", strings.TrimSpace(out.String())), nil
		}
		// Nothing of the command ran when its helper's mounts failed:
		// run it once more, confined by split grants.
		if sb == nil || attempt > 0 || !sb.MountsFailed(res.ExitCode, out.String()) {
			break
		}
	}
	text := out.String()
	var b strings.Builder
	b.WriteString(interrupted)
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	if text == "" {
		b.WriteString("(no output)\n")
	}
	if sb != nil {
		b.WriteString(sandboxHints(b.String(), res, policy))
		b.WriteString(tc.goCacheNotice(ctx, line, cwd, cold))
		if note := sb.LayerNote(out.String()); len(overlay) > 0 && note != "" {
			b.WriteString(note + "\n")
		}
	}
	r := Result{}
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; every process of the command was killed]", timeout)
		r.IsError = true
	case res.Cancelled:
		b.WriteString("[cancelled; every process of the command was killed]")
		r.IsError = true
	case res.Signal != "":
		fmt.Fprintf(&b, "[killed by signal %s]", res.Signal)
	default:
		if note := watch.Note(); note != "" {
			fmt.Fprintf(&b, "[exit code %d; %s]", res.ExitCode, note)
		} else {
			fmt.Fprintf(&b, "[exit code %d]", res.ExitCode)
		}
	}
	fmt.Fprintf(&b, " [%.1fs]", res.Elapsed.Seconds())
	if sn := sandboxNote(ctx, tc, note, sb != nil, policy); sn != "" {
		fmt.Fprintf(&b, " [sandbox: %s]", sn)
	}
	r.Output = b.String()
	if res.Cancelled && ctx.Err() != nil {
		return r, ctx.Err()
	}
	return r, nil
}

// sandboxNote is the result's note on the sandbox: in full (what the
// system offers and lacks) the first time in a run, then in short, what
// this command may do, the first time a command of the run may do just
// that, and else nothing: the model has it already, and every later
// request of the run would carry it again.
func sandboxNote(ctx context.Context, tc *ToolContext, full string, confined bool, policy sandbox.Policy) string {
	what := strings.TrimSuffix(full, ": "+policy.String())
	states := tc.FileStates(ctx)
	short := "off"
	if confined {
		short = "on: " + policy.String()
	}
	if states.FirstTime("exec sandbox: " + what) {
		states.FirstTime("exec sandbox policy: " + short)
		return full
	}
	if states.FirstTime("exec sandbox policy: " + short) {
		return short
	}
	return ""
}

// prepareCommand builds the command for argv: confined by policy when
// Landlock is there (sb, to clean up after), else plain, and the note
// the result carries about the sandbox.
// scratch is the run's $CB_SCRATCH ("": none).
func prepareCommand(tc *ToolContext, opts ExecOptions, argv []string, cwd string, policy sandbox.Policy, overlay []sandbox.OverlayLayer, scratch string) (cmd *exec.Cmd, sb *sandbox.Run, note string, err error) {
	info := opts.SandboxInfo()
	if len(overlay) > 0 && !info.Overlay {
		return nil, nil, "", fmt.Errorf("%w: %s", sandbox.ErrNoOverlay, info.OverlayReason)
	}
	if info.Landlock == 0 {
		if !opts.NoSandbox {
			sandboxLogOnce.Do(func() { slog.Warn("exec runs commands unconfined", "sandbox", info.Summary) })
		}
		cmd = exec.Command(argv[0], argv[1:]...)
		var dropped []string
		// Unconfined, the command has the network: only NO_COLOR.
		set := shell.Settings(false)
		if scratch != "" {
			set[ScratchEnv] = scratch
		}
		cmd.Env, dropped = shell.Environ(os.Environ(), opts.Env, set)
		debugDropped(dropped)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Dir = cwd
		return cmd, nil, info.Summary, nil
	}
	sb, err = sandbox.Prepare(sandbox.Request{
		Roots: tc.Guard.Roots(), WorkRoot: tc.WorkRoot(), Dir: cwd, Argv: argv, Policy: policy,
		WritableDirs: opts.WritableDirs, Overlay: overlay,
		UserDirs: []string{config.UserDir(os.Getenv), config.StateDir(os.Getenv)},
		Environ: func(set map[string]string) []string {
			if scratch != "" {
				set[ScratchEnv] = scratch
			}
			for k, v := range shell.Settings(!policy.Network) {
				if _, ok := set[k]; !ok {
					set[k] = v
				}
			}
			env, dropped := shell.Environ(os.Environ(), opts.Env, set)
			if len(dropped) > 0 {
				debugDropped(dropped)
			}
			return env
		},
	})
	if err != nil {
		return nil, nil, "", err
	}
	if info.Full {
		// Every promise kept: what the command may do is all the model
		// needs, not how the kernel keeps it.
		return sb.Cmd, sb, "on: " + policy.String(), nil
	}
	return sb.Cmd, sb, "on, " + info.Summary + ": " + policy.String(), nil
}

// debugDropped logs the variables a command did not inherit.
func debugDropped(names []string) {
	slog.Debug("exec: variables not passed to the command", "names", names)
}

// timeout is how long the command may run: the one asked for, capped
// at opts.MaxTimeout, or opts.Timeout when none was.
func (in execInput) timeout(opts ExecOptions) time.Duration {
	if in.Timeout > 0 {
		return min(time.Duration(in.Timeout)*time.Second, opts.MaxTimeout)
	}
	return opts.Timeout
}
