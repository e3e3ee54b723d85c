package shell

import (
	"fmt"
	"strings"
	"testing"
)

func TestOutputKeepsHeadAndTail(t *testing.T) {
	h := NewOutput(100)
	for i := range 1000 {
		fmt.Fprintf(h, "%04d\n", i)
	}
	s := h.String()
	if !strings.HasPrefix(s, "0000\n0001\n") || !strings.HasSuffix(s, "0998\n0999\n") {
		t.Errorf("head/tail lost: %q", s)
	}
	if !strings.Contains(s, "[4900 bytes of output elided]") {
		t.Errorf("elision count wrong: %q", s)
	}
	small := NewOutput(100)
	small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("short output altered: %q", small.String())
	}
}

func TestOutputDropsEscapes(t *testing.T) {
	in := "\x1b[1m\x1b[32mPASSED\x1b[0m tests/test_a.py::test_x \x1b[31;1mFAILED\x1b[m\n" +
		"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x07 \x1b]0;title\x07\x1b(Bdone\x1b[2K\x1b[1G\n"
	want := "PASSED tests/test_a.py::test_x FAILED\nlink done\n"
	if got := stripEscapes(in); got != want {
		t.Errorf("stripEscapes = %q, want %q", got, want)
	}
	// Written a byte at a time, a sequence split between writes still goes.
	h := NewOutput(1000)
	for i := range len(in) {
		h.Write([]byte{in[i]})
	}
	if h.String() != want || h.Total() != int64(len(want)) {
		t.Errorf("Output = %q (total %d), want %q", h.String(), h.Total(), want)
	}
	// A stray ESC ] without its end does not swallow the lines after it.
	if got := stripEscapes("a\x1b]oops\nnext line\n"); got != "a\nnext line\n" {
		t.Errorf("unterminated OSC: %q", got)
	}
	// Text, tabs and UTF-8 pass unchanged.
	if s := "ok\tgithub.com/x — 0.01s\r\n"; stripEscapes(s) != s {
		t.Errorf("plain text altered: %q", stripEscapes(s))
	}
}

// stripEscapes returns s without terminal escape sequences, as Output
// keeps it.
func stripEscapes(s string) string {
	var f escapeFilter
	return string(f.filter(make([]byte, 0, len(s)), []byte(s)))
}
