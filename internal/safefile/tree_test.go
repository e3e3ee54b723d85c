package safefile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// A Tree reads many files of few directories as Look does, refusing a
// link on the way as Look does, and keeps reading the directory it
// checked even when its path is made a link to elsewhere meanwhile.
func TestTreeLooksLikeLook(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, p := range []string{"a/1.txt", "a/2.txt", "b/3.txt"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "2.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tr := safefile.NewTree(root)
	defer tr.Close()
	e, err := tr.Look(t.Context(), "a/1.txt", 100)
	if err != nil || string(e.Data) != "a/1.txt" {
		t.Fatalf("a/1.txt: %q %v", e.Data, err)
	}
	// The directory a/ is swapped for a link to outside: the Tree holds
	// the one it checked.
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "a.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if e, err := tr.Look(t.Context(), "a/2.txt", 100); err != nil || string(e.Data) != "a/2.txt" {
		t.Errorf("a/2.txt after the swap: %q %v, want the checked directory's file", e.Data, err)
	}
	if e, err := tr.Look(t.Context(), "b/3.txt", 100); err != nil || string(e.Data) != "b/3.txt" {
		t.Errorf("b/3.txt: %q %v", e.Data, err)
	}
	// A path through a link is refused, as Look refuses it.
	if e, err := tr.Look(t.Context(), "link/2.txt", 100); err == nil {
		t.Errorf("read through a link: %q", e.Data)
	}
	if _, err := safefile.Look(t.Context(), root, "link/2.txt", 100); err == nil {
		t.Error("Look read through a link")
	}
}
