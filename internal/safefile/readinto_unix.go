//go:build unix

package safefile

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadInto reads the regular file name inside d into buf, reused: it
// returns the content, in buf when it fits. A file over limit is
// ErrTooLarge and anything but a regular file ErrNotRegular. It opens as
// OpenRegular does (no symlink, non-blocking) but on the raw descriptor:
// a search reads thousands of files, and an *os.File costs two more
// system calls each (the non-blocking check and the poller's refusal of
// a regular file). The file is read up to the size fstat gave, not to
// EOF: what it holds when the search reaches it.
func (d *Dir) ReadInto(name string, buf []byte, limit int64) ([]byte, error) {
	fd, size, err := d.openRegularFd(name, limit)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readFd(fd, size, buf, limit)
}

// ReadMapped is ReadInto for a search of many files: a file of
// MapThreshold bytes or more is mapped (read-only, private) instead of
// copied into buf, and mapped is true. The caller then reads the content
// only inside CatchFault, since a file truncated underneath faults on
// the pages past its new end, and hands it to Unmap once done.
func (d *Dir) ReadMapped(name string, buf []byte, limit int64) (content []byte, mapped bool, err error) {
	fd, size, err := d.openRegularFd(name, limit)
	if err != nil {
		return nil, false, err
	}
	defer unix.Close(fd)
	if size >= MapThreshold && size == int64(int(size)) {
		b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
		if err == nil {
			return b, true, nil
		}
		// A file system that cannot map reads as ever.
	}
	content, err = readFd(fd, size, buf, limit)
	return content, false, err
}

// Unmap releases content that ReadMapped mapped.
func Unmap(content []byte) error { return unix.Munmap(content) }

// Prefault maps in every page of content, which ReadMapped mapped, in
// one call, for a caller about to read it all: a fault per page (or per
// few pages) costs more. It is advice; errors are ignored.
func Prefault(content []byte) { prefault(content) }

// openRegularFd opens the regular file name inside d (no symlink,
// non-blocking) and returns its descriptor and size. A name of one
// component, what a directory listing gives, is opened with openat and
// O_NOFOLLOW: with no separator and no "..", there is nothing else for
// openat2's resolve flags to refuse.
func (d *Dir) openRegularFd(name string, limit int64) (int, int64, error) {
	flag := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC
	var fd int
	var err error
	if oneComponent(name) {
		fd, err = openatRetry(d.Fd(), name, flag, 0)
	} else {
		fd, err = openat2Beneath(d.Fd(), name, flag, 0)
		if errors.Is(err, errNoOpenat2) {
			fd, err = openatEach(d.Fd(), name, flag, 0)
		}
	}
	if err != nil {
		return -1, 0, pathErr("open", name, err)
	}
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, 0, ErrNotRegular
	}
	if st.Size > limit {
		unix.Close(fd)
		return -1, 0, ErrTooLarge
	}
	return fd, st.Size, nil
}

// oneComponent reports whether name is a single path element that
// names an entry of its directory (not the directory or its parent).
func oneComponent(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

func openatRetry(dirfd int, name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flag, perm)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// readFd reads the file fd of size bytes (fstat's) into buf, or a new
// buffer when it does not fit, up to limit.
func readFd(fd int, size int64, buf []byte, limit int64) ([]byte, error) {
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, size+1+size/8)
	}
	b := buf[:cap(buf)]
	n := 0
	for {
		k, err := unix.Read(fd, b[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		n += k
		if k == 0 || (size > 0 && int64(n) == size) {
			return b[:n], nil
		}
		if n == len(b) { // grown past its size: read on, to the limit
			if int64(n) > limit {
				return nil, ErrTooLarge
			}
			nb := make([]byte, 2*len(b))
			copy(nb, b)
			b = nb
		}
	}
}

func fstat(fd int, st *unix.Stat_t) error {
	for {
		err := unix.Fstat(fd, st)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
