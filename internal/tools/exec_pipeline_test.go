package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestExecPipelineFooter: a pipeline whose first command fails while
// its last succeeds exits 0, as the shell says, and the footer names
// the failure under bash, in a list too; where only /bin/sh runs the line, the footer
// says that a pipeline's status is its last command's.
func TestExecPipelineFooter(t *testing.T) {
	for _, mode := range []string{"bash", "no bash"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "bash" {
				testenv.NeedsTool(t, "bash", "running lines in bash", "apt-get install bash")
			} else {
				t.Setenv("PATH", pathWithoutBash(t, "cat", "tail", "printf"))
			}
			if sh := hostShell(); sh.Bash != (mode == "bash") {
				t.Fatalf("hostShell() = %+v with PATH=%s", sh, os.Getenv("PATH"))
			}
			r, _ := execContext(t, ExecOptions{})
			res, err := runExecTool(t, t.Context(), r, map[string]any{"command": "cat missing.txt | tail -1"})
			if err != nil || res.IsError {
				t.Fatalf("exec = %+v, %v", res, err)
			}
			want := map[string]string{
				"bash":    "\n[exit code 0; failed: cat …=1] [",
				"no bash": "\n[exit code 0; ran in /bin/sh (no bash): a pipeline's status is its last command's] [",
			}[mode]
			if !strings.Contains(res.Output, want) || !strings.Contains(res.Output, "missing.txt") || strings.Contains(res.Output, "pipestatus") {
				t.Errorf("output:\n%s\nwant %q", res.Output, want)
			}

			// All succeeded: the usual footer, and the output as printed.
			res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "printf 'a\\nb\\n' | tail -1"})
			want = map[string]string{"bash": "b\n[exit code 0] [", "no bash": "b\n[exit code 0; ran in /bin/sh"}[mode]
			if !strings.HasPrefix(withoutSandboxNotes(res.Output), want) {
				t.Errorf("output:\n%s\nwant it to start %q", res.Output, want)
			}

			// A list around a pipeline: the failure is named too.
			if mode == "bash" {
				res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "true && cat missing.txt 2>&1 | tail -1"})
				if !strings.Contains(res.Output, "\n[exit code 0; failed: cat …=1] [") {
					t.Errorf("a list around a pipeline:\n%s", res.Output)
				}
			}

			// Not a pipeline: nothing added.
			res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "cat missing.txt"})
			if !strings.Contains(res.Output, "\n[exit code 1] [") {
				t.Errorf("output:\n%s", res.Output)
			}
		})
	}
}
