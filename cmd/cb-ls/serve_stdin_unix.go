//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollable returns stdin in a form whose Close interrupts a blocked Read,
// when stdin is a pipe or a socket (what editors give a language server).
// Without that, an editor that keeps the pipe open after "exit" holds the
// process for the server's whole drain timeout. Terminals, files and
// other readers are returned as they are.
//
// The reader does not switch the pipe to non-blocking mode and hand it to
// Go's network poller (which is how an *os.File's Close interrupts a
// Read): for a server woken by every keystroke, each wait there is a read
// that fails with EAGAIN, a park, an epoll_wait on whichever thread polls
// and a wake-up of the reading goroutine, about a fifth of the CPU a
// keystroke costs. Instead Read blocks its thread in poll(2) on stdin and
// on a pipe of its own, then reads stdin: one wait and one read per
// wake-up, and Close wakes the poll through the second pipe.
func pollable(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok || f != os.Stdin {
		return r
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return r
	}
	// Not f.Fd(), which would change the descriptor's blocking mode:
	// Read copes with either.
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(d uintptr) { fd = int(d) })
	}
	if fd < 0 {
		return r
	}
	sr, err := newStdinReader(fd)
	if err != nil {
		return r
	}
	return sr
}

// stdinReader reads a pipe or socket descriptor with blocking system
// calls, outside the runtime's poller, and can be closed while a Read
// waits. Reads are serialised (the connection's read loop is the only
// reader); Close may be called from any goroutine, more than once.
type stdinReader struct {
	fd int

	rmu   sync.Mutex // held by Read; guards wakeR
	wakeR int        // read end of the wake pipe; -1 once Read saw Close

	closed    atomic.Bool
	closeOnce sync.Once
	wakeW     int // write end of the wake pipe, closed by Close
}

func newStdinReader(fd int) (*stdinReader, error) {
	var p [2]int
	syscall.ForkLock.RLock()
	err := unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	return &stdinReader{fd: fd, wakeR: p[0], wakeW: p[1]}, nil
}

// errClosed is what Read returns once Close has been called: the error a
// closed *os.File gives, which the connection treats as a clean end.
var errClosed = &os.PathError{Op: "read", Path: "/dev/stdin", Err: os.ErrClosed}

// Read waits until stdin has data, reaches its end or the reader is
// closed, then reads once. It returns io.EOF at the end of input.
func (s *stdinReader) Read(p []byte) (int, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if s.closed.Load() {
			s.closeWake()
			return 0, errClosed
		}
		fds := [2]unix.PollFd{
			{Fd: int32(s.fd), Events: unix.POLLIN},
			{Fd: int32(s.wakeR), Events: unix.POLLIN},
		}
		if _, err := unix.Poll(fds[:], -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return 0, &os.PathError{Op: "poll", Path: "/dev/stdin", Err: err}
		}
		if fds[1].Revents != 0 {
			continue // Close: reported at the top of the loop
		}
		if fds[0].Revents == 0 {
			continue
		}
		// Readable, at its end or in error: read says which.
		n, err := unix.Read(s.fd, p)
		switch {
		case err == nil && n == 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// A signal, or a descriptor left non-blocking by the
			// parent: wait again.
			continue
		default:
			return 0, &os.PathError{Op: "read", Path: "/dev/stdin", Err: err}
		}
	}
}

// closeWake closes the wake pipe's read end; Read calls it with rmu held
// once it has seen Close, so no poll can be using the descriptor.
func (s *stdinReader) closeWake() {
	if s.wakeR >= 0 {
		_ = unix.Close(s.wakeR)
		s.wakeR = -1
	}
}

// Close makes a waiting Read, and every later one, return an error
// wrapping os.ErrClosed. The stdin descriptor itself stays open.
func (s *stdinReader) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		// Closing the write end makes the read end readable (POLLHUP)
		// for good: a Read that polls after this still wakes.
		_ = unix.Close(s.wakeW)
	})
	return nil
}
