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
