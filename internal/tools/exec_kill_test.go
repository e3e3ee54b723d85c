package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lateLine marks that it runs, then would append to late.txt after the
// deadline, or when a SIGTERM reaches its shell: on timeout or cancel,
// nothing of it may happen after the call returns. Its sleep outlasts
// the timeout below by five seconds, so that a loaded machine's slow
// kill is not mistaken for a command that went on.
const lateLine = "trap 'echo late >> late.txt; exit 1' TERM; echo started > started.txt; sleep 8; echo late >> late.txt"

// execKillModes are the two ways a command runs: confined by the
// sandbox (where its shell is the init of a PID namespace, which
// ignores SIGTERM) and unconfined.
var execKillModes = []struct {
	name string
	opts ExecOptions
}{
	{"sandboxed", ExecOptions{}},
	{"unconfined", ExecOptions{NoSandbox: true}},
}

// assertNothingLate waits past the point where the command line would
// have written late.txt, and fails if it did. The wait is bounded on
// purpose: it proves that something does not happen.
func assertNothingLate(t *testing.T, root string, res Result) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "started.txt")); err != nil {
		t.Fatalf("the command never ran (%v): %q", err, res.Output)
	}
	time.Sleep(8500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(root, "late.txt")); err == nil {
		t.Errorf("late.txt was written after the call returned: %q", res.Output)
	}
}

func TestExecTimeoutStopsTheCommandLine(t *testing.T) {
	for _, m := range execKillModes {
		t.Run(m.name, func(t *testing.T) {
			// Three seconds: the sandbox's start on a loaded machine must
			// not use up the time before the command writes started.txt.
			t.Parallel()
			r, root := execContext(t, m.opts)
			res, err := runExecTool(t, t.Context(), r, map[string]any{"command": lateLine, "timeout": 3, "write": true, "reason": "test"})
			if err != nil || !res.IsError || !strings.Contains(res.Output, "timed out after 3s") {
				t.Fatalf("exec = %+v, %v; want a timeout", res, err)
			}
			assertNothingLate(t, root, res)
		})
	}
}

func TestExecCancelStopsTheCommandLine(t *testing.T) {
	for _, m := range execKillModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			r, root := execContext(t, m.opts)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				for ctx.Err() == nil {
					if _, err := os.Stat(filepath.Join(root, "started.txt")); err == nil {
						cancel()
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}()
			res, err := runExecTool(t, ctx, r, map[string]any{"command": lateLine, "write": true, "reason": "test"})
			if err == nil || !strings.Contains(res.Output, "cancelled") {
				t.Fatalf("exec = %+v, %v; want cancelled", res, err)
			}
			assertNothingLate(t, root, res)
		})
	}
}
