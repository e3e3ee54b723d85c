//go:build unix

package safefile

import (
	"errors"

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
	flag := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := openat2Beneath(d.Fd(), name, flag, 0)
	if errors.Is(err, errNoOpenat2) {
		fd, err = openatEach(d.Fd(), name, flag, 0)
	}
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, ErrNotRegular
	}
	size := st.Size
	if size > limit {
		return nil, ErrTooLarge
	}
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
