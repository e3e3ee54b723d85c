package lsp

import (
	"context"
	"os"
	"time"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// A write command changes files on disk; an editor reloads the open,
// unmodified buffers of those files (the files_changed runEvent, or its
// own file watcher) and sends the reloaded text. Until that didChange
// arrives the overlay holds the text from before the command, and the
// model, told to read those files again, would read the old text. So a
// buffer whose text differs from the disk after a command awaits its
// reload: a read of it waits for the editor's next change, up to
// reloadWait, then reads the buffer as it is (an editor that does not
// reload, or a buffer with unsaved typing, which the editor keeps).

// reloadWait is how long a read waits for the editor to reload a buffer
// a command changed on disk.
const reloadWait = 2 * time.Second

// maxReloadCompare bounds the file read to see whether a buffer already
// matches the disk.
const maxReloadCompare = 8 << 20

// awaitReloads marks the open buffers of files a command created or
// changed whose text is not what the disk now holds. Called before the
// editor hears of the change, so its reload cannot come first.
func (s *Server) awaitReloads(c tools.ExecChanges) {
	for _, f := range c.Files {
		if f.Kind == "deleted" {
			continue // an editor keeps a deleted file's buffer
		}
		b, ok := s.overlay.ByPath(f.Path)
		if !ok {
			continue
		}
		fi, err := os.Stat(f.Path)
		if err != nil || fi.Size() > maxReloadCompare {
			continue
		}
		disk, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		if same, _ := b.Matches(disk); !same {
			b.awaitReload(time.Now().Add(reloadWait))
		}
	}
}

// reloadWaitStarted, if set (tests), is called when a read starts
// waiting for a reload.
var reloadWaitStarted func(path string)

// reloaded returns the open buffer for path once the editor reloaded it
// (or it needed no reload, or the wait ran out); nil if it was closed
// meanwhile.
func (o *Overlay) reloaded(ctx context.Context, path string) *Buffer {
	told := false
	for {
		changed := o.Changed()
		b, ok := o.ByPath(path)
		if !ok {
			return nil
		}
		by, waiting := b.reloadDeadline()
		if !waiting {
			return b
		}
		left := time.Until(by)
		if left <= 0 {
			b.awaitReload(time.Time{})
			return b
		}
		if !told && reloadWaitStarted != nil {
			reloadWaitStarted(path)
			told = true
		}
		t := time.NewTimer(left)
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return b
		}
		t.Stop()
	}
}
