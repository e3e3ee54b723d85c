//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Dir is an open directory that was reached without following a
// symlink. Everything below it is opened relative to its descriptor.
// It holds the raw descriptor, not an *os.File: a search opens and
// closes thousands of directories, and an *os.File costs a system call
// more to make (the non-blocking check) and the poller's work to close.
type Dir struct {
	fd      int
	name    string // for errors and the names of files opened below
	closed  atomic.Bool
	cleanup runtime.Cleanup // closes fd if the Dir is dropped unclosed

	mu     sync.Mutex // one listing at a time: they share fd's offset
	listed bool
}

// newDir wraps the directory descriptor fd, opened as name.
func newDir(fd int, name string) *Dir {
	d := &Dir{fd: fd, name: name}
	d.cleanup = runtime.AddCleanup(d, func(fd int) { unix.Close(fd) }, fd)
	return d
}

func (d *Dir) Fd() int { return d.fd }

// Close closes the directory; closing it again does nothing.
func (d *Dir) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	d.cleanup.Stop()
	return unix.Close(d.fd)
}

// OpenBeneath opens the directory rel (slash-separated, "." for root)
// below the real directory root, following no symlink.
func OpenBeneath(root, rel string) (*Dir, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	d := newDir(fd, root)
	if rel == "." || rel == "" {
		return d, nil
	}
	defer d.Close()
	return d.OpenDir(filepath.FromSlash(rel))
}

// openDir opens the directory name (one or more components) below d.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	fd, err := d.openFd(name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return newDir(fd, filepath.Join(d.name, name)), nil
}

// openFile opens the file name below d; a symlink anywhere on the way,
// the last component included, is refused.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return d.open(name, flag, perm)
}

func (d *Dir) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := d.openFd(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.name, name)), nil
}

func (d *Dir) openFd(name string, flag int, perm os.FileMode) (int, error) {
	flag |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	var fd int
	var err error
	if oneComponent(name) {
		// An entry of d itself: openat with O_NOFOLLOW refuses all that
		// openat2's resolve flags would (no separator, no "..").
		fd, err = openatRetry(d.Fd(), name, flag, uint32(perm.Perm()))
	} else {
		fd, err = openat2Beneath(d.Fd(), name, flag, uint32(perm.Perm()))
		if errors.Is(err, errNoOpenat2) {
			fd, err = openatEach(d.Fd(), name, flag, uint32(perm.Perm()))
		}
	}
	if err != nil {
		return -1, pathErr("open", name, err)
	}
	return fd, nil
}

// openatEach opens name one component at a time with O_NOFOLLOW, for
// kernels without openat2.
func openatEach(dirfd int, name string, flag int, perm uint32) (int, error) {
	parts := strings.Split(filepath.Clean(name), string(filepath.Separator))
	cur := dirfd
	defer func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		if p == ".." {
			return -1, unix.EXDEV
		}
		next, err := unix.Openat(cur, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		if cur != dirfd {
			unix.Close(cur)
		}
		cur = next
	}
	last := parts[len(parts)-1]
	if last == ".." {
		return -1, unix.EXDEV
	}
	return unix.Openat(cur, last, flag, perm)
}

// pathErr turns the errors of a refused symlink into ErrPathChanged.
func pathErr(op, name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s %s: %w", op, filepath.ToSlash(name), ErrPathChanged)
	}
	return &fs.PathError{Op: op, Path: filepath.ToSlash(name), Err: err}
}

// openSelf opens d again, for a listing: the listing offset is per open
// file, so each listing needs its own.
func (d *Dir) OpenSelf() (*os.File, error) {
	return d.open(".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
}

// readlink returns the target of the symlink name in d.
func (d *Dir) Readlink(name string) (string, error) {
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		k, err := unix.Readlinkat(d.Fd(), name, buf)
		if err != nil {
			return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
		}
		if k < n {
			return string(buf[:k]), nil
		}
	}
}

// exists reports whether name exists in d, without following a symlink.
func (d *Dir) Exists(name string) (bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.Fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	return err == nil, err
}

func (d *Dir) Rename(from, to string) error {
	return pathErr("rename", to, unix.Renameat(d.Fd(), from, d.Fd(), to))
}

func (d *Dir) Link(from, to string) error {
	err := unix.Linkat(d.Fd(), from, d.Fd(), to, 0)
	if errors.Is(err, unix.EEXIST) {
		return &fs.PathError{Op: "link", Path: to, Err: fs.ErrExist}
	}
	if err != nil {
		return &fs.PathError{Op: "link", Path: to, Err: err}
	}
	return nil
}

func (d *Dir) Remove(name string) error { return unix.Unlinkat(d.Fd(), name, 0) }

// mkdirAll opens the directory rel below d, creating what is missing
// (mode 0777, umask applies), following no symlink.
func (d *Dir) MkdirAll(rel string) (*Dir, error) {
	cur := d
	for _, p := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if p == "." {
			continue
		}
		if err := unix.Mkdirat(cur.Fd(), p, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
			if cur != d {
				cur.Close()
			}
			return nil, &fs.PathError{Op: "mkdir", Path: p, Err: err}
		}
		next, err := cur.OpenDir(p)
		if cur != d {
			cur.Close()
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	if cur == d {
		return d.OpenDir(".")
	}
	return cur, nil
}
