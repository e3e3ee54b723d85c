package lsp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// TestUndoRunRestoresExecChanges: a run's approved write command
// changes one file, deletes another, creates a third and appends to a
// file over the 1 MiB kept per file. catbuddy.undoRun puts the first
// two back from the content kept before the command ran and deletes the
// third in ONE applyEdit, and names the large file as not restorable.
func TestUndoRunRestoresExecChanges(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{
			"command": "echo changed > change.txt && rm gone.txt && echo new > made.txt && echo more >> big.log",
			"write":   true, "reason": "regenerate the fixtures",
		})),
		agenttest.TextTurn("Regenerated."),
	}}, nil)
	big := bytes.Repeat([]byte("log line\n"), (1<<20)/9+1)
	for name, content := range map[string][]byte{"change.txt": []byte("before\n"), "gone.txt": []byte("keep me\n"), "big.log": big} {
		if err := os.WriteFile(filepath.Join(f.dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.ed.SetMessageRequest(fake.Choose("Run"))
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	if n := len(f.ed.Questions()); n != 1 {
		t.Fatalf("%d questions, want the one for the write command", n)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "change.txt")); string(b) != "changed\n" {
		t.Fatalf("the approved command did not run: change.txt = %q", b)
	}

	before := len(f.ed.AppliedEdits())
	res := f.undo(t, map[string]string{"runId": runID})
	if !res.Undone {
		t.Fatalf("undo = %+v", res)
	}
	edits := f.ed.AppliedEdits()[before:]
	if len(edits) != 1 {
		t.Fatalf("undo sent %d applyEdits, want 1", len(edits))
	}
	ops := map[string]string{}
	for _, dc := range edits[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.CreateFile:
			ops[filepath.Base(c.URI.Path())] += "create "
		case *protocol.DeleteFile:
			ops[filepath.Base(c.URI.Path())] += "delete "
		case *protocol.TextDocumentEdit:
			ops[filepath.Base(c.TextDocument.URI.Path())] += "edit "
		}
	}
	if ops["change.txt"] != "edit " || ops["gone.txt"] != "create edit " || ops["made.txt"] != "delete " || ops["big.log"] != "" {
		t.Errorf("the undo's changes per file: %q", ops)
	}
	// The fake editor opens edited files and leaves them unsaved, as an
	// editor does; a created file is on disk.
	if got := f.ed.Text(fileuri.FromPath(filepath.Join(f.dir, "change.txt"))); got != "before\n" {
		t.Errorf("change.txt after undo = %q", got)
	}
	if got := f.ed.Text(fileuri.FromPath(filepath.Join(f.dir, "gone.txt"))); got != "keep me\n" {
		t.Errorf("gone.txt after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt still there after undo: %v", err)
	}
	if len(res.Left) != 1 || res.Left[0].File != "big.log" || !strings.Contains(res.Left[0].Reason, "larger than 1 MiB") {
		t.Errorf("left = %+v, want big.log named as too large to restore", res.Left)
	}
	for _, want := range []string{"restored change.txt, gone.txt", "deleted made.txt", "left big.log alone: a command changed it and it was larger than 1 MiB"} {
		if !strings.Contains(res.Message, want) {
			t.Errorf("message %q lacks %q", res.Message, want)
		}
	}
}
