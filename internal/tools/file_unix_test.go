//go:build unix

package tools

import (
	"syscall"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

func TestReadFileFIFO(t *testing.T) {
	e := newFileEnv(t, nil)
	if err := syscall.Mkfifo(e.abs("pipe"), 0o644); err != nil {
		testenv.Needs(t, false, "FIFOs", err.Error(), "a file system with named pipes")
	}
	// A read that opened the FIFO would block forever without a writer:
	// the test completing is the check.
	res := e.call("read_file", argMap{"path": "pipe"})
	if !res.IsError {
		t.Fatalf("FIFO read: %+v", res)
	}
	for _, tool := range []string{"edit_file", "write_file"} {
		a := argMap{"path": "pipe", "old_string": "a", "new_string": "b"}
		if tool == "write_file" {
			a = argMap{"path": "pipe", "content": "x"}
		}
		if res := e.call(tool, a); !res.IsError {
			t.Errorf("%s on a FIFO: %+v", tool, res)
		}
	}
}
