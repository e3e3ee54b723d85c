package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Result is how a command ended.
type Result struct {
	// ExitCode is the shell's exit status (-1 when a signal ended it).
	ExitCode int
	// Signal names the signal that killed the shell, if one did.
	Signal string
	// TimedOut and Cancelled say the call's timeout or context ended
	// it; every process of the command was killed then.
	TimedOut, Cancelled bool
	Elapsed             time.Duration
}

// Run runs cmd in its own process group with stdin closed and
// stdout+stderr (interleaved, as a terminal shows them) written to out.
// On timeout or cancellation the whole group gets SIGTERM, then SIGKILL
// after grace; when the shell exits, whatever it left behind in its
// group is killed too, so nothing outlives the call or holds the pipe.
// cmd must lead a process group of its own (Setpgid, as the commands of
// sandbox.Prepare do).
func Run(ctx context.Context, cmd *exec.Cmd, out *Output, timeout, grace time.Duration) (Result, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return Result{}, err
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

	var res Result
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-timer.C:
		res.TimedOut = true
		waitErr = killGroup(pgid, waited, grace)
	case <-ctx.Done():
		res.Cancelled = true
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
	res.Elapsed = time.Since(start)

	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
		res.ExitCode = ee.ExitCode()
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
