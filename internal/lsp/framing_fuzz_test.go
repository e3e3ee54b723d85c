package lsp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

func lspFrame(body string) []byte {
	return fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// FuzzFrameReader feeds the frame reader random bytes followed by a valid
// frame: it never panics, its buffers stay within the caps (the window,
// or what was pushed back; a body at most twice what arrived), and the
// valid frame after the garbage is served whenever the garbage holds no
// "Content-Length" of its own to mislead it.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("garbage"))
	f.Add([]byte("Content-Length: 10\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{\"a\":1}"))
	f.Add([]byte("Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\"}"))
	f.Add([]byte("X: y\r\n"))
	f.Add([]byte("abc:"))
	f.Add([]byte("\r\n\r\n"))
	f.Add(bytes.Repeat([]byte("a"), 10000))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("content-length: 1\n\nx"))
	want := `{"jsonrpc":"2.0","method":"probe"}`
	f.Fuzz(func(t *testing.T, garbage []byte) {
		in := append(bytes.Clone(garbage), lspFrame(want)...)
		fr := newFrameReader(bytes.NewReader(in))
		resyncable := indexFold(garbage, "content-length") < 0
		served := false
		for range 1000 {
			body, _, err := fr.Next()
			if len(fr.buf) > windowSize+len(in) {
				t.Fatalf("window grew to %d bytes for %d bytes of input", len(fr.buf), len(in))
			}
			if cap(fr.body) > max(2*windowSize, 2*len(in)) {
				t.Fatalf("body buffer grew to %d bytes for %d bytes of input", cap(fr.body), len(in))
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errFraming) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if string(body) == want {
				served = true
			} else if len(body) > 0 {
				fr.Resync(bytes.Clone(body))
			}
		}
		if resyncable && !served {
			t.Fatalf("the valid frame after %q was not served", garbage)
		}
	})
}
