//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawPipe returns a pipe as descriptors the test owns, in blocking mode
// unless nonblock.
func rawPipe(t *testing.T, nonblock bool) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	if nonblock {
		if err := unix.SetNonblock(p[0], true); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// readResult is one Read's outcome, delivered from a goroutine.
type readResult struct {
	data string
	err  error
}

func readAsync(sr *stdinReader, size int) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		buf := make([]byte, size)
		n, err := sr.Read(buf)
		ch <- readResult{string(buf[:n]), err}
	}()
	return ch
}

// await bounds a wait that only a broken reader would exceed.
func await(t *testing.T, ch <-chan readResult) readResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Minute):
		t.Fatal("Read did not return")
		return readResult{}
	}
}

func TestStdinReaderReadsThenEOF(t *testing.T) {
	for _, nonblock := range []bool{false, true} {
		r, w := rawPipe(t, nonblock)
		sr, err := newStdinReader(r)
		if err != nil {
			t.Fatal(err)
		}
		ch := readAsync(sr, 64) // waits: nothing written yet
		if _, err := unix.Write(w, []byte("Content-Length: 2\r\n\r\n{}")); err != nil {
			t.Fatal(err)
		}
		if got := await(t, ch); got.err != nil || got.data != "Content-Length: 2\r\n\r\n{}" {
			t.Fatalf("nonblock=%v: Read = %q, %v", nonblock, got.data, got.err)
		}
		// A short buffer takes what fits; the rest comes next.
		if _, err := unix.Write(w, []byte("abcdef")); err != nil {
			t.Fatal(err)
		}
		if got := await(t, readAsync(sr, 4)); got.data != "abcd" || got.err != nil {
			t.Fatalf("nonblock=%v: short Read = %q, %v", nonblock, got.data, got.err)
		}
		if got := await(t, readAsync(sr, 4)); got.data != "ef" || got.err != nil {
			t.Fatalf("nonblock=%v: rest = %q, %v", nonblock, got.data, got.err)
		}
		ch = readAsync(sr, 64)
		unix.Close(w) // the editor closes its end: EOF
		if got := await(t, ch); got.err != io.EOF || got.data != "" {
			t.Fatalf("nonblock=%v: after the writer closed, Read = %q, %v; want EOF", nonblock, got.data, got.err)
		}
		if err := sr.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStdinReaderCloseEndsBlockedRead: the editor keeps its end open and
// the server closes stdin at exit; the blocked Read ends with the error of
// a closed file, and so does every later one.
func TestStdinReaderCloseEndsBlockedRead(t *testing.T) {
	r, w := rawPipe(t, false)
	sr, err := newStdinReader(r)
	if err != nil {
		t.Fatal(err)
	}
	ch := readAsync(sr, 64)
	if err := sr.Close(); err != nil {
		t.Fatal(err)
	}
	if got := await(t, ch); !errors.Is(got.err, os.ErrClosed) {
		t.Fatalf("blocked Read after Close = %q, %v; want os.ErrClosed", got.data, got.err)
	}
	// Input that arrives after Close is not read.
	if _, err := unix.Write(w, []byte("late")); err != nil {
		t.Fatal(err)
	}
	if got := await(t, readAsync(sr, 64)); !errors.Is(got.err, os.ErrClosed) || got.data != "" {
		t.Fatalf("Read after Close = %q, %v; want os.ErrClosed", got.data, got.err)
	}
	if err := sr.Close(); err != nil { // a second Close is harmless
		t.Fatal(err)
	}
	// The stdin descriptor itself is left open.
	if _, err := unix.FcntlInt(uintptr(r), unix.F_GETFD, 0); err != nil {
		t.Fatalf("the read descriptor was closed: %v", err)
	}
}

func TestPollableLeavesOtherReadersAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := pollable(f); got != io.Reader(f) {
		t.Errorf("pollable(a file that is not stdin) = %T, want it unchanged", got)
	}
	old := os.Stdin
	defer func() { os.Stdin = old }()
	os.Stdin = f // a regular file is not switched either
	if got := pollable(f); got != io.Reader(f) {
		t.Errorf("pollable(stdin from a regular file) = %T, want it unchanged", got)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	os.Stdin = pr
	got, ok := pollable(pr).(*stdinReader)
	if !ok {
		t.Fatalf("pollable(stdin from a pipe) = %T, want *stdinReader", pollable(pr))
	}
	defer got.Close()
	if _, err := pw.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if n, err := got.Read(buf); n != 1 || err != nil || buf[0] != 'x' {
		t.Fatalf("Read = %d, %v", n, err)
	}
}
