//go:build unix

package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestList: List gives what os.ReadDir gives (names and types) for
// regular files, directories, symlinks (not followed) and a FIFO, for a
// directory too large for one listing call, and again when listed twice.
func TestList(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("n", 200)
	for i := range 1200 { // ~260 KB of entries: several getdents64 calls
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("%s%04d é", long, i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := func() []string {
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name()+" "+e.Type().String())
		}
		return out
	}()
	d, err := OpenBeneath(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf []byte
	for pass := range 2 {
		ents, err := d.List(nil, &buf)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name+" "+e.Type.String())
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("pass %d: List gives %d entries, os.ReadDir %d; first difference: %v", pass, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%q vs %q", a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}
