//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadInto: the content of a regular file, in the buffer given when
// it fits; a symlink, a directory, a FIFO and a file over the limit are
// refused with their errors, and a FIFO does not block.
func TestReadInto(t *testing.T) {
	root := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "hello\nworld\n")
	write("empty", "")
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := OpenBeneath(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	buf := make([]byte, 0, 64)
	got, err := d.ReadInto("a.txt", buf, 1<<20)
	if err != nil || string(got) != "hello\nworld\n" {
		t.Fatalf("ReadInto(a.txt) = %q, %v", got, err)
	}
	if &got[:1][0] != &buf[:1][0] {
		t.Error("a file that fits was not read into the buffer given")
	}
	if got, err := d.ReadInto("empty", nil, 1<<20); err != nil || len(got) != 0 {
		t.Errorf("ReadInto(empty) = %q, %v", got, err)
	}
	if got, err := d.ReadInto("a.txt", nil, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %q, %v; want ErrTooLarge", got, err)
	}
	if _, err := d.ReadInto("sub", nil, 1<<20); err == nil {
		t.Error("a directory was read")
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadInto("link", nil, 1<<20); err == nil {
		t.Errorf("a symlink was followed: %q", got)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadInto("fifo", nil, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v, want ErrNotRegular", err)
	}
}
