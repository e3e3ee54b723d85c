package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// TestExecPartialScanRunsNothing: a before scan cut short (here a
// workspace folder gone since it was added) would report every file it
// missed as created, and the undo would delete them; the command does not
// run at all then.
func TestExecPartialScanRunsNothing(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	g, err := guard.New([]string{root, other}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Approver: &askRecorder{answer: Approved}}
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	ledger := filestate.NewLedger()
	res := execArgs(t, filestate.NewLedgerContext(t.Context(), ledger), r, map[string]any{"command": "touch made.txt", "write": true})
	if !res.IsError || !strings.Contains(res.Output, "nothing ran: the workspace could not be scanned before the command") {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(g.WorkRoot(), "made.txt")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
	if n := len(ledger.Files()); n != 0 {
		t.Errorf("ledger holds %d files", n)
	}
}
