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
	// it; every process of the command was killed then, at once.
	TimedOut, Cancelled bool
	Elapsed             time.Duration
}

// Run runs cmd in its own process group with stdin closed and
// stdout+stderr (interleaved, as a terminal shows them) written to out.
// On timeout or cancellation the shell and its whole group get SIGKILL
// at once (see kill); when the shell exits, whatever it left behind in
// its group is killed too, so nothing outlives the call or holds the
// pipe. drain bounds the wait for the pipe's last output after that,
// which a process that left the group may still hold. cmd must lead a
// process group of its own (Setpgid, as the commands of sandbox.Prepare
// do).
func Run(ctx context.Context, cmd *exec.Cmd, out *Output, timeout, drain time.Duration) (Result, error) {
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
		waitErr = kill(pgid, waited)
	case <-ctx.Done():
		res.Cancelled = true
		waitErr = kill(pgid, waited)
	}
	// Leftovers (background jobs) die with the call.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(drain):
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

// kill sends SIGKILL to the shell, then to its group, and returns the
// shell's wait result. There is no SIGTERM and no grace first, on
// purpose: a command past its deadline must do nothing more, and a
// SIGTERM does not give that. It ends only the process running now (a
// sleep), and the shell goes on with the rest of the line; a trap runs
// whatever it says; and in the sandbox the shell is the init of a PID
// namespace, which the kernel shields from every signal it has no
// handler for. SIGKILL to that init takes the whole namespace down,
// daemons that left the group included. What a command would clean up
// on SIGTERM lies in its private TMPDIR or the workspace, which the
// change report shows.
func kill(pid int, waited <-chan error) error {
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return <-waited
}
