package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// TestExecScratchLastsAcrossCalls: what one command of a run leaves in
// $CB_SCRATCH the next command of the run finds (read-only commands
// included), while its $TMPDIR is gone; the directory lies outside the
// workspace, another run gets its own, and RemoveScratch removes a
// run's.
func TestExecScratchLastsAcrossCalls(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	r, root := execContext(t, ExecOptions{})
	run := filestate.NewContext(t.Context(), filestate.New())
	res, err := runExecTool(t, run, r, map[string]any{"command": `echo kept > "$CB_SCRATCH/note" && echo gone > "$TMPDIR/note" && echo "$CB_SCRATCH"`})
	if err != nil || res.IsError || !strings.Contains(res.Output, "[exit code 0]") {
		t.Fatalf("first call: %+v, %v", res, err)
	}
	dir, _, _ := strings.Cut(res.Output, "\n")
	if !filepath.IsAbs(dir) || strings.HasPrefix(dir, root) {
		t.Fatalf("CB_SCRATCH = %q, want a directory outside the workspace %s", dir, root)
	}
	res, _ = runExecTool(t, run, r, map[string]any{"command": `cat "$CB_SCRATCH/note"; cat "$TMPDIR/note"`})
	if !strings.HasPrefix(res.Output, "kept\n") || !strings.Contains(res.Output, "No such file") {
		t.Errorf("second call of the run:\n%s", res.Output)
	}
	other := filestate.NewContext(t.Context(), filestate.New())
	res, _ = runExecTool(t, other, r, map[string]any{"command": `echo "$CB_SCRATCH"; ls "$CB_SCRATCH"`})
	if got, _, _ := strings.Cut(res.Output, "\n"); got == dir || strings.Contains(res.Output, "note") {
		t.Errorf("another run shares the scratch directory:\n%s", res.Output)
	}
	// A run with an ID (its change set's) is named by it, and removed
	// with its state.
	idDir := (&ToolContext{}).scratchDir(WithRunView(run, RunView{ID: "run-1", Workspace: DiskWorkspace{}}))
	if filepath.Base(idDir) != "run-1" {
		t.Fatalf("the scratch of run-1 is %q", idDir)
	}
	if err := RemoveScratch("run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(idDir); !os.IsNotExist(err) {
		t.Errorf("RemoveScratch left %s: %v", idDir, err)
	}
}
