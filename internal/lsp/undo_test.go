package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// undoAnswer is catbuddy.undoRun's result as a client decodes it.
type undoAnswer struct {
	RunID    string   `json:"runId"`
	Undone   bool     `json:"undone"`
	Restored []string `json:"restored"`
	Deleted  []string `json:"deleted"`
	Left     []struct {
		File   string `json:"file"`
		Reason string `json:"reason"`
	} `json:"left"`
	Message string `json:"message"`
}

func (f *runFixture) undo(t *testing.T, args any) undoAnswer {
	t.Helper()
	var res undoAnswer
	if err := f.ed.ExecuteCommand("catbuddy.undoRun", []any{args}, &res); err != nil {
		t.Fatalf("catbuddy.undoRun: %v", err)
	}
	return res
}

// editAndCreateRun is a run that fixes calc.go and creates notes.txt.
func editAndCreateRun() agenttest.Script {
	return agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "notes.txt", "content": "fixed Add\n"})),
		agenttest.TextTurn("Done."),
	}}
}

// TestUndoRunRestoresEditedAndCreated: the undo is one reviewed
// applyEdit, pinned to the buffer's current version, that puts calc.go
// back and deletes the file the run created.
func TestUndoRunRestoresEditedAndCreated(t *testing.T) {
	f := newRunFixture(t, editAndCreateRun(), nil)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	notes := filepath.Join(f.dir, "notes.txt")
	if _, err := os.Stat(notes); err != nil {
		t.Fatalf("the run did not create notes.txt: %v", err)
	}
	before := len(f.ed.AppliedEdits())
	version := f.ed.Version(f.uri)

	res := f.undo(t, map[string]any{}) // default: the last run
	if !res.Undone || res.RunID != runID {
		t.Fatalf("undo = %+v", res)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("calc.go after undo:\n%s\nwant:\n%s", got, calcGo)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("notes.txt still there after undo: %v", err)
	}
	edits := f.ed.AppliedEdits()[before:]
	if len(edits) != 1 {
		t.Fatalf("undo sent %d applyEdits, want 1", len(edits))
	}
	var sawDelete, pinned bool
	for _, dc := range edits[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.DeleteFile:
			sawDelete = strings.HasSuffix(string(c.URI), "/notes.txt")
		case *protocol.TextDocumentEdit:
			pinned = c.TextDocument.Version != nil && *c.TextDocument.Version == version
		}
	}
	if !sawDelete || !pinned {
		t.Errorf("undo edit: DeleteFile notes.txt %v, calc.go pinned to version %d %v", sawDelete, version, pinned)
	}
	if want := "Undid run " + runID + ": restored calc.go; deleted notes.txt."; res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
	// Twice is refused.
	if err := f.ed.ExecuteCommand("catbuddy.undoRun", []any{map[string]string{"runId": runID}}, nil); err == nil || !strings.Contains(err.Error(), "already undone") {
		t.Errorf("second undo: %v", err)
	}
}

// TestUndoRunOverUserTyping: the user typed after the run. Where the
// typing is away from the run's change, only the run's change is
// reverted; where it touches it, the file is left alone and named.
func TestUndoRunOverUserTyping(t *testing.T) {
	t.Run("clean merge", func(t *testing.T) {
		f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Done.")}}, nil)
		runID := f.start(t, "catbuddy.fix", f.fixArgs())
		f.awaitEnd(t, runID)
		f.ed.Replace(f.uri, "package calc", "package calc // typed")
		res := f.undo(t, map[string]string{"runId": runID})
		want := strings.Replace(calcGo, "package calc", "package calc // typed", 1)
		if got := f.ed.Text(f.uri); got != want {
			t.Errorf("buffer:\n%s\nwant:\n%s", got, want)
		}
		if !res.Undone || !strings.Contains(res.Message, "restored calc.go (the run's changes only; later changes kept)") {
			t.Errorf("undo = %+v", res)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Done.")}}, nil)
		runID := f.start(t, "catbuddy.fix", f.fixArgs())
		f.awaitEnd(t, runID)
		f.ed.Replace(f.uri, "return a + b", "return a + b // checked")
		typed := f.ed.Text(f.uri)
		before := len(f.ed.AppliedEdits())
		res := f.undo(t, map[string]string{"runId": runID})
		if got := f.ed.Text(f.uri); got != typed {
			t.Errorf("buffer changed by a conflicting undo:\n%s", got)
		}
		if n := len(f.ed.AppliedEdits()) - before; n != 0 {
			t.Errorf("%d applyEdits sent though nothing could be undone", n)
		}
		if res.Undone || len(res.Left) != 1 || res.Left[0].File != "calc.go" || !strings.Contains(res.Message, "left calc.go alone") {
			t.Errorf("undo = %+v, want calc.go left alone and named", res)
		}
	})
}

func TestUndoRunErrors(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("Nothing to change.")}}, nil)
	if err := f.ed.ExecuteCommand("catbuddy.undoRun", []any{map[string]any{}}, nil); err == nil || !strings.Contains(err.Error(), "no run yet") {
		t.Errorf("undo before any run: %v", err)
	}
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.awaitEnd(t, runID)
	if res := f.undo(t, map[string]string{"runId": runID}); res.Undone || !strings.Contains(res.Message, "changed no file") {
		t.Errorf("undo of a run that changed nothing: %+v", res)
	}
	if err := f.ed.ExecuteCommand("catbuddy.undoRun", []any{map[string]string{"runId": "r99"}}, nil); err == nil || !strings.Contains(err.Error(), "unknown run") {
		t.Errorf("undo of an unknown run: %v", err)
	}
}
