//go:build unix

package safefile

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Every kind of hostile entry a cloned tree can hold is refused, and
// none is opened for reading: a FIFO opened would block, /dev/zero read
// would never end.
func TestReadBeneathRefusesAllButRegularFiles(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(secret, []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(root, "ok.txt"), []byte("fine\n"), 0o644))
	must(t, os.Symlink(secret, filepath.Join(root, "creds.txt")))
	must(t, os.Symlink("/dev/zero", filepath.Join(root, "z")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(t, os.Symlink(filepath.Dir(secret), filepath.Join(root, "dir")))
	ctx := context.Background()
	if b, _, err := ReadBeneath(ctx, root, "ok.txt", 100); err != nil || string(b) != "fine\n" {
		t.Fatalf("ok.txt: %q, %v", b, err)
	}
	for _, rel := range []string{"creds.txt", "z", "fifo"} {
		b, _, err := ReadBeneath(ctx, root, rel, 100)
		if !errors.Is(err, ErrNotRegular) || b != nil {
			t.Errorf("%s: %q, %v; want ErrNotRegular", rel, b, err)
		}
		if _, _, err := HashBeneath(ctx, root, rel); !errors.Is(err, ErrNotRegular) {
			t.Errorf("hash %s: %v; want ErrNotRegular", rel, err)
		}
	}
	if b, _, err := ReadBeneath(ctx, root, "dir/credentials", 100); err == nil || b != nil {
		t.Errorf("through a linked directory: %q, %v; want it refused", b, err)
	}
	if fi, err := LstatBeneath(root, "fifo"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("lstat fifo: %v, %v", fi, err)
	}
	if tg, err := ReadlinkBeneath(root, "z"); err != nil || tg != "/dev/zero" {
		t.Errorf("readlink z: %q, %v", tg, err)
	}
}

// A file over the limit is not read, but it can be hashed, streamed.
func TestReadBeneathBoundsAndHashes(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big")
	must(t, os.WriteFile(big, nil, 0o644))
	must(t, os.Truncate(big, 3<<20)) // sparse
	if b, fi, err := ReadBeneath(context.Background(), root, "big", 1<<20); !errors.Is(err, ErrTooLarge) || b != nil || fi.Size() != 3<<20 {
		t.Fatalf("big: %d bytes, %v", len(b), err)
	}
	sum, n, err := HashBeneath(context.Background(), root, "big")
	if err != nil || n != 3<<20 || sum != sha256.Sum256(make([]byte, 3<<20)) {
		t.Fatalf("hash: %x, %d, %v", sum, n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := HashBeneath(ctx, root, "big"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled hash: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
