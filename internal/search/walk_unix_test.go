//go:build unix

package search

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// TestWalkDirectorySwappedForSymlink: a directory replaced by a symlink
// between the listing of its parent and its own opening (here, from the
// visit of its entry) is not entered: it is opened by name in its
// parent without following a symlink, and counted as unreadable. Every
// directory the walk opened is closed at the end.
func TestWalkDirectorySwappedForSymlink(t *testing.T) {
	dir := writeTree(t, "-- a/inside.txt --\nx\n-- b/c/deep.txt --\nx\n-- top.txt --\nx\n")
	outside := writeTree(t, "-- secret.txt --\nx\n")
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	start, err := g.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	fdsBefore, countable := openFDs()
	var mu sync.Mutex
	var seen []string
	stats, err := Walk(t.Context(), start, Options{Workers: 2}, func(_ int, _ *safefile.Dir, e Entry) {
		if e.Rel == "a" {
			if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a.moved")); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "a")); err != nil {
				t.Error(err)
			}
		}
		mu.Lock()
		seen = append(seen, e.Rel)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if want := []string{"a", "b", "b/c", "b/c/deep.txt", "top.txt"}; !slices.Equal(seen, want) {
		t.Errorf("visited %q, want %q (nothing through the symlink)", seen, want)
	}
	if n := stats.Unreadable.Load(); n != 1 {
		t.Errorf("%d unreadable directories, want 1 (the swapped one)", n)
	}
	if after, _ := openFDs(); countable && after != fdsBefore {
		t.Errorf("%d descriptors open after the walk, %d before", after, fdsBefore)
	}
}

// openFDs counts this process's open descriptors, where /proc does.
func openFDs() (int, bool) {
	ents, err := os.ReadDir("/proc/self/fd")
	return len(ents), err == nil
}
