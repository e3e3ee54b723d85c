//go:build unix

package snapshot

import (
	"errors"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"golang.org/x/sys/unix"
)

// copyFile stamps the regular file name in d and copies its content
// within keep's budget; false if it is gone. One open, fstat, read and
// close on raw descriptors: a 20,000-file copy must not allocate more
// than the content and must not involve the runtime's poller.
func copyFile(d *safefile.Dir, name string, keep *Budget) (fileStamp, []byte, copyState, bool) {
	fd, err := openForCopy(d.Fd(), name)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return fileStamp{}, nil, notCopied, false
		}
		st, ok := stampIn(d, name)
		if errors.Is(err, unix.ELOOP) {
			return st, nil, notRegular, ok // became a symlink
		}
		return st, nil, unreadable, ok
	}
	defer unix.Close(fd)
	var sys unix.Stat_t
	if unix.Fstat(fd, &sys) != nil {
		st, ok := stampIn(d, name)
		return st, nil, unreadable, ok
	}
	st := stampOfStat(&sys)
	if sys.Mode&unix.S_IFMT != unix.S_IFREG {
		return st, nil, notRegular, true
	}
	if state := keep.reserve(sys.Size); state != copied {
		return st, nil, state, true
	}
	if sys.Size == 0 {
		return st, []byte{}, copied, true
	}
	buf := make([]byte, sys.Size)
	for n := 0; n < len(buf); {
		k, err := unix.Read(fd, buf[n:])
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			keep.release(sys.Size)
			return st, nil, unreadable, true
		case k == 0:
			keep.release(sys.Size)
			return st, nil, changing, true
		}
		n += k
	}
	return st, buf, copied, true
}

// openForCopy opens one name in dirfd for reading, never following a
// symlink and never blocking on a FIFO.
func openForCopy(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
