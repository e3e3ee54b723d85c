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

	"github.com/catbuddy/cb-ls/guard"
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
	// KillGrace is how long a process group has between SIGTERM and
	// SIGKILL (2 s).
	KillGrace time.Duration
	// NoSandbox turns Landlock confinement off.
	NoSandbox bool
	// WritableDirs are extra directories the confined command may write
	// (besides the workspace, the temp directories and the build caches).
	WritableDirs []string
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
	if o.KillGrace <= 0 {
		o.KillGrace = 2 * time.Second
	}
	return o
}

type execInput struct {
	Command string `json:"command" jsonschema:"the shell command line, run with /bin/sh -c"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"working directory, relative to the workspace root (default: the root)"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"timeout in seconds (default 120)"`
}

var sandboxLogOnce sync.Once

// Exec runs a shell command in the workspace, behind the command guard
// and, where the kernel has it, inside a Landlock sandbox.
func Exec(tc *ToolContext) Tool {
	return NewTool("exec", execDescription, func(ctx context.Context, in execInput) (Result, error) {
		return runExec(ctx, tc, in)
	})
}

func runExec(ctx context.Context, tc *ToolContext, in execInput) (Result, error) {
	opts := tc.Options.Exec.withDefaults()
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
	cg := &guard.CommandGuard{
		Roots:    tc.Guard.Roots(),
		WorkRoot: tc.WorkRoot(),
		Home:     home,
		URL:      &guard.URLGuard{Allow: tc.Options.Web.Allow},
	}
	if err := cg.Check(in.Command, cwd); err != nil {
		return Errorf("%v", err), nil
	}
	timeout := opts.Timeout
	if in.Timeout > 0 {
		timeout = min(time.Duration(in.Timeout)*time.Second, opts.MaxTimeout)
	}

	env, removed := scrubEnv(os.Environ())
	if len(removed) > 0 {
		slog.Debug("exec: secrets removed from the environment", "names", removed)
	}
	argv := []string{"/bin/sh", "-c", in.Command}
	cmd := exec.Command(argv[0], argv[1:]...)
	sandbox := "off"
	sysAttr := &syscall.SysProcAttr{Setpgid: true}
	if active, desc := SandboxStatus(); opts.NoSandbox {
		sandbox = "off (disabled in configuration)"
	} else if !active {
		sandboxLogOnce.Do(func() { slog.Warn("exec runs commands unconfined", "landlock", desc) })
		sandbox = "off (" + desc + ")"
	} else {
		spec, attr := prepareSandbox(tc.Guard.Roots(), tc.WorkRoot(), append(defaultWritableCaches(), opts.WritableDirs...), argv)
		sysAttr = attr
		path, entry, err := sandboxCommand(spec)
		if err != nil {
			return Errorf("prepare sandbox: %v", err), nil
		}
		cmd = exec.Command(path)
		cmd.Args = []string{"sh", "-c", in.Command}
		env = append(env, entry)
		sandbox = "on (" + desc + ": writes only in the workspace, temp and cache directories; .catbuddy/ unreadable)"
	}
	cmd.Dir = cwd
	cmd.Env = env
	cmd.SysProcAttr = sysAttr

	out := newHeadTail(opts.MaxOutput)
	res, err := runGroup(ctx, cmd, out, timeout, opts.KillGrace)
	if err != nil {
		return Errorf("start %q: %v", in.Command, err), nil
	}
	var b strings.Builder
	b.WriteString(out.String())
	if out.Total() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	if out.Total() == 0 {
		b.WriteString("(no output)\n")
	}
	r := Result{}
	switch {
	case res.timedOut:
		fmt.Fprintf(&b, "[timed out after %s; the process group was killed]", timeout)
		r.IsError = true
	case res.cancelled:
		b.WriteString("[cancelled; the process group was killed]")
		r.IsError = true
	case res.signal != "":
		fmt.Fprintf(&b, "[killed by signal %s]", res.signal)
	default:
		fmt.Fprintf(&b, "[exit code %d]", res.exitCode)
	}
	fmt.Fprintf(&b, " [%.1fs] [sandbox: %s]", res.elapsed.Seconds(), sandbox)
	r.Output = b.String()
	if res.cancelled && ctx.Err() != nil {
		return r, ctx.Err()
	}
	return r, nil
}

type groupResult struct {
	exitCode            int
	signal              string
	timedOut, cancelled bool
	elapsed             time.Duration
}

// runGroup runs cmd in its own process group with stdin closed and
// stdout+stderr (interleaved, as a terminal shows them) written to out.
// On timeout or cancellation the whole group gets SIGTERM, then SIGKILL
// after grace; when the shell exits, whatever it left behind in its
// group is killed too, so nothing outlives the call or holds the pipe.
func runGroup(ctx context.Context, cmd *exec.Cmd, out *headTail, timeout, grace time.Duration) (groupResult, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return groupResult{}, err
	}
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return groupResult{}, err
	}
	pw.Close()
	pgid := cmd.Process.Pid
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32*1024)
		for {
			n, err := pr.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var res groupResult
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-timer.C:
		res.timedOut = true
		waitErr = killGroup(pgid, waited, grace)
	case <-ctx.Done():
		res.cancelled = true
		waitErr = killGroup(pgid, waited, grace)
	}
	// Leftovers (background jobs) die with the call.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(grace):
		// A process that left the group (setsid) still holds the pipe.
	}
	pr.Close()
	res.elapsed = time.Since(start)

	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal().String()
		}
		res.exitCode = ee.ExitCode()
	} else if waitErr != nil {
		return res, waitErr
	}
	return res, nil
}

// killGroup sends SIGTERM to the group, SIGKILL after grace, and returns
// the shell's wait result.
func killGroup(pgid int, waited <-chan error, grace time.Duration) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-waited:
		return err
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return <-waited
}
