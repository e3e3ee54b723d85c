package lsp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// TestReadAwaitsReload: after a command changed an open file, a read
// of its buffer waits for the editor's reload and sees the new text; a
// buffer that already matches the disk, or a deleted file's, does not
// wait; without a reload the read gives the buffer when the wait ends.
func TestReadAwaitsReload(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Server{overlay: NewOverlay()}
	u := fileuri.FromPath(notes)
	b, err := s.overlay.Open(u, "text", 1, "stale\n")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan string, 1)
	reloadWaitStarted = func(p string) { started <- p }
	defer func() { reloadWaitStarted = nil }()

	s.awaitReloads(tools.ExecChanges{Files: []tools.ExecChange{{Path: notes, Kind: "changed"}}})
	got := make(chan string, 1)
	go func() { got <- string(s.overlay.reloaded(context.Background(), notes).Snapshot().Content) }()
	select {
	case p := <-started:
		if p != notes {
			t.Fatalf("waited for %s", p)
		}
	case text := <-got:
		t.Fatalf("the read did not wait for the reload: %q", text)
	}
	select {
	case text := <-got:
		t.Fatalf("the read did not wait for the reload: %q", text)
	default:
	}
	if err := s.overlay.Change(u, 2, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "fresh\n"}}, protocol.PositionEncodingKindUTF16); err != nil {
		t.Fatal(err)
	}
	if text := <-got; text != "fresh\n" {
		t.Errorf("read after the reload = %q", text)
	}

	// Matching the disk already, or deleted: nothing to wait for.
	s.awaitReloads(tools.ExecChanges{Files: []tools.ExecChange{{Path: notes, Kind: "changed"}, {Path: notes, Kind: "deleted"}}})
	if _, waiting := b.reloadDeadline(); waiting {
		t.Error("a buffer equal to the disk awaits a reload")
	}

	// No reload comes (unsaved typing the editor keeps): the read gives
	// the buffer once the wait is over, and the next read does not wait.
	b.awaitReload(time.Now().Add(20 * time.Millisecond))
	if text := string(s.overlay.reloaded(context.Background(), notes).Snapshot().Content); text != "fresh\n" {
		t.Errorf("read after the wait = %q", text)
	}
	select {
	case <-started:
	default:
		t.Error("the read did not wait before the deadline")
	}
	if _, waiting := b.reloadDeadline(); waiting {
		t.Error("the deadline is kept after it passed")
	}
}
