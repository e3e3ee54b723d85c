//go:build unix

package userstate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

func TestReadFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := userstate.ReadFile(r, "fifo", 10); err == nil {
		t.Error("a FIFO was read")
	}
}

// TestAdoptTakesNoRemovedFolder: a folder removed, and a new one made
// that reuses its inode (as file systems do), is a new checkout: it
// takes over nothing of the removed one's state.
func TestAdoptTakesNoRemovedFolder(t *testing.T) {
	base, parent := filepath.Join(t.TempDir(), "state"), t.TempDir()
	old := filepath.Join(parent, "old")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	var oldIno uint64
	if fi, err := os.Stat(old); err == nil {
		oldIno = fi.Sys().(*syscall.Stat_t).Ino
	}
	f, _ := userstate.For(base, old)
	r, err := f.Open("runs", "r1")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	reused := false
	var fresh string
	for i := 0; i < 50 && !reused; i++ {
		fresh = filepath.Join(parent, fmt.Sprintf("new%d", i))
		if err := os.MkdirAll(fresh, 0o755); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(fresh)
		reused = fi.Sys().(*syscall.Stat_t).Ino == oldIno
	}
	t.Logf("inode reused: %v", reused)
	g, _ := userstate.For(base, fresh)
	if from, err := g.Adopt(); from != "" || err != nil {
		t.Errorf("a new folder took over the removed %q (%v)", from, err)
	}
}
