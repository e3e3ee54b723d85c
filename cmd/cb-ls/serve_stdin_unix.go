//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// pollable returns stdin in a form whose Close interrupts a blocked Read:
// a pipe switched to non-blocking mode joins Go's poller. Without it an
// editor that keeps the pipe open after "exit" holds the process for the
// server's whole drain timeout. Terminals and other inputs are left alone
// (O_NONBLOCK on a shared terminal would affect the shell).
func pollable(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok || f != os.Stdin {
		return r
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return r
	}
	// Not f.Fd(): it would put the descriptor back into blocking mode.
	if err := syscall.SetNonblock(0, true); err != nil {
		return r
	}
	return os.NewFile(0, "/dev/stdin")
}
