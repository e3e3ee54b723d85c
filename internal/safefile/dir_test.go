package safefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A directory listed twice, or after a file was added, lists what it
// holds each time: listings share the descriptor's offset.
func TestReadDirTwice(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"b", "a", "c"} {
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenBeneath(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	names := func() []string {
		t.Helper()
		ents, err := d.ReadDir()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("first listing = %q", got)
	}
	if err := os.WriteFile(filepath.Join(root, "d"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("second listing = %q", got)
	}
}
