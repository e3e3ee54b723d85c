package lsp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// These tests check that keeping a run's changes in the editor never
// loses the user's work.

// TestPendingUndoAfterTwoKeepsKeepsTyping: the user keeps one hunk,
// types a line, keeps the other; undoing the run reverts the two kept
// hunks and leaves the typed line.
func TestPendingUndoAfterTwoKeepsKeepsTyping(t *testing.T) {
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "package calc", "new_string": "package calculator"})),
		editCall(),
		agenttest.TextTurn("Two changes."),
	}}, true)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	files := f.ed.AwaitPending(runID, "two hunks", func(fs []lsp.PendingFile) bool {
		c, err := fake.FileOf(fs, "calc.go")
		return err == nil && len(c.Hunks) == 2
	})
	calc, _ := fake.FileOf(files, "calc.go")
	if res, err := f.ed.Keep(runID, nil, []string{calc.Hunks[0].ID}); err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep the first hunk = %+v, %v", res, err)
	}
	f.ed.Replace(f.uri, "// Add returns a plus b.\n", "// Add returns a plus b.\n// mine\n")
	if res, err := f.ed.Keep(runID, nil, nil); err != nil || len(res.Kept) != 1 || len(res.Left) != 0 {
		t.Fatalf("keep the rest = %+v, %v", res, err)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "package calculator") || !strings.Contains(got, "a + b") || !strings.Contains(got, "// mine") {
		t.Fatalf("buffer after the keeps:\n%s", got)
	}
	if res := f.undo(t, map[string]string{"runId": runID}); !res.Undone {
		t.Fatalf("undo = %+v", res)
	}
	want := strings.Replace(calcGo, "// Add returns a plus b.\n", "// Add returns a plus b.\n// mine\n", 1)
	if got := f.ed.Text(f.uri); got != want {
		t.Errorf("buffer after the undo:\n%s\nwant the run's hunks reverted and the typed line kept:\n%s", got, want)
	}
}

// binaryBlob is n bytes no editor shows as text: NULs among them.
func binaryBlob(n int, high bool) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7 % 128)
		if high && i%5 == 0 {
			b[i] = 0xff
		}
	}
	return b
}

// TestPendingKeepBinaryIsWholeOnDisk: a command changes a 4 KiB binary
// file and a Latin-1 text (not UTF-8: a text edit could not carry its
// bytes). The pending notification carries none of its bytes; keeping it
// with no buffer open writes it byte for byte on the disk, never as a
// text edit; keeping one that is open in a buffer says to close the
// buffer and leaves it pending.
func TestPendingKeepBinaryIsWholeOnDisk(t *testing.T) {
	needsLayer(t)
	f := newPendingFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{
			"command": `printf '\377\000tail' >> blob.bin && printf 'more\000' >> open.bin && sed -i 's/lait/LAIT/' latin1.txt`, "write": true, "reason": "append to the blobs",
		})),
		agenttest.TextTurn("Appended."),
	}}, true)
	blob, open := filepath.Join(f.dir, "blob.bin"), filepath.Join(f.dir, "open.bin")
	if err := os.WriteFile(blob, binaryBlob(4096, true), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(open, binaryBlob(4096, false), 0o644); err != nil {
		t.Fatal(err)
	}
	latin := filepath.Join(f.dir, "latin1.txt")
	if err := os.WriteFile(latin, []byte("un caf\xe9 au lait, s'il vous pla\xeet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openURI := f.ed.OpenFile(open)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	files := f.ed.AwaitPending(runID, "both blobs pending", func(fs []lsp.PendingFile) bool {
		return hasFile(fs, "blob.bin", "changed") && hasFile(fs, "open.bin", "changed") && hasFile(fs, "latin1.txt", "changed")
	})
	var ids []string
	for _, name := range []string{"blob.bin", "latin1.txt", "open.bin"} {
		pf, _ := fake.FileOf(files, name)
		if !pf.Whole || len(pf.Hunks) != 1 || pf.Hunks[0].OldText != "" || pf.Hunks[0].NewText != "" || !strings.Contains(pf.Hunks[0].Label, "whole file") {
			t.Fatalf("%s pending = %+v, want one whole-file item without texts", name, pf)
		}
		ids = append(ids, pf.Hunks[0].ID)
	}
	before := len(f.ed.AppliedEdits())
	res, err := f.ed.Keep(runID, nil, ids)
	if err != nil {
		t.Fatalf("keep: %v", err)
	}
	if !slices.Equal(res.Kept, ids[:2]) || len(res.Left) != 1 || res.Left[0].Hunk != ids[2] || !strings.Contains(res.Left[0].Reason, "close the buffer to keep it") {
		t.Fatalf("keep = %+v, want blob.bin kept and open.bin left (close the buffer)", res)
	}
	want := append(binaryBlob(4096, true), "\xff\x00tail"...)
	if got, _ := os.ReadFile(blob); !bytes.Equal(got, want) {
		t.Errorf("blob.bin on disk is not the command's bytes (%d bytes, want %d)", len(got), len(want))
	}
	if got, _ := os.ReadFile(latin); string(got) != "un caf\xe9 au LAIT, s'il vous pla\xeet\n" {
		t.Errorf("latin1.txt on disk = %q, want the command's bytes", got)
	}
	if got, _ := os.ReadFile(open); !bytes.Equal(got, binaryBlob(4096, false)) {
		t.Errorf("open.bin changed on disk although its buffer is open")
	}
	if n := len(f.ed.AppliedEdits()); n != before {
		t.Errorf("the keep sent %d applyEdits for whole-file items, want none", n-before)
	}
	f.ed.AwaitPending(runID, "open.bin still pending", func(fs []lsp.PendingFile) bool {
		return len(fs) == 1 && hasFile(fs, "open.bin", "changed")
	})
	// Closed, it is kept byte for byte.
	f.ed.CloseFile(openURI)
	if res, err := f.ed.Keep(runID, nil, nil); err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep after closing = %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(open); !bytes.Equal(got, append(binaryBlob(4096, false), "more\x00"...)) {
		t.Errorf("open.bin on disk is not the command's bytes")
	}
}
