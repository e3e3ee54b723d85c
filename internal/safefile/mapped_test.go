//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// TestReadMapped: a file under MapThreshold is read into the buffer
// given, one from the threshold up is mapped, both with the file's
// bytes; what ReadInto refuses (symlinks, a name leaving the directory,
// FIFOs, files over the limit) ReadMapped refuses too.
func TestReadMapped(t *testing.T) {
	root := t.TempDir()
	small := []byte("small\n")
	large := bytes.Repeat([]byte("0123456789abcde\n"), MapThreshold/16+7)
	for name, b := range map[string][]byte{"small.txt": small, "large.txt": large} {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := OpenBeneath(root, "sub")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	up, err := OpenBeneath(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()

	buf := make([]byte, 0, 64)
	got, mapped, err := up.ReadMapped("small.txt", buf, 1<<30)
	if err != nil || mapped || !bytes.Equal(got, small) || &got[:1][0] != &buf[:1][0] {
		t.Errorf("small file: mapped=%t, err=%v, content %q (want read into the buffer)", mapped, err, got)
	}
	got, mapped, err = up.ReadMapped("large.txt", buf, 1<<30)
	if err != nil || !mapped || !bytes.Equal(got, large) {
		t.Fatalf("large file: mapped=%t, err=%v, %d bytes (want mapped, %d)", mapped, err, len(got), len(large))
	}
	if err := Unmap(got); err != nil {
		t.Errorf("Unmap: %v", err)
	}
	if _, _, err := up.ReadMapped("large.txt", nil, MapThreshold); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}

	if err := os.Symlink("../large.txt", filepath.Join(root, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := d.ReadMapped("link", nil, 1<<30); !errors.Is(err, ErrPathChanged) {
		t.Errorf("a symlink: %d bytes, %v; want ErrPathChanged", len(got), err)
	}
	if got, _, err := d.ReadMapped("../large.txt", nil, 1<<30); err == nil {
		t.Errorf("a name leaving the directory was read: %d bytes", len(got))
	}
	if err := os.Symlink(root, filepath.Join(root, "sub", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := d.ReadMapped("dirlink/large.txt", nil, 1<<30); err == nil {
		t.Errorf("a path through a symlinked directory was read: %d bytes", len(got))
	}
	if err := syscall.Mkfifo(filepath.Join(root, "sub", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.ReadMapped("fifo", nil, 1<<30); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v, want ErrNotRegular", err)
	}
}

// TestCatchFaultTruncated: a mapped file truncated underneath faults
// when its lost pages are read; CatchFault turns the SIGBUS into
// ErrFault instead of a crash, and the process goes on.
func TestCatchFaultTruncated(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "big")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 4*MapThreshold), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenBeneath(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	content, mapped, err := d.ReadMapped("big", nil, 1<<30)
	if err != nil || !mapped {
		t.Fatalf("ReadMapped: mapped=%t, %v", mapped, err)
	}
	defer Unmap(content)
	if err := CatchFault(func() { _ = bytes.IndexByte(content, 'y') }); err != nil {
		t.Fatalf("reading the intact mapping: %v", err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	n := -2
	err = CatchFault(func() { n = bytes.IndexByte(content, 'y') })
	if !errors.Is(err, ErrFault) {
		t.Fatalf("reading past the new end: IndexByte = %d, err %v; want ErrFault", n, err)
	}
	if n != -2 {
		t.Errorf("the read returned %d after faulting", n)
	}
	if debug.SetPanicOnFault(false) {
		t.Error("CatchFault left the goroutine panicking on faults")
	}
	// The goroutine is left as it was: a fault outside CatchFault would
	// crash again, and other panics go through.
	func() {
		defer func() {
			if p := recover(); p != "not a fault" {
				t.Errorf("recovered %v, want the panic to go through CatchFault", p)
			}
		}()
		_ = CatchFault(func() { panic("not a fault") })
		t.Error("CatchFault swallowed a panic that was no fault")
	}()
}
