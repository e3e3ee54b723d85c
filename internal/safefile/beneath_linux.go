package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openRegularOnly opens the entry name of d for reading if it is a
// regular file, and never opens anything else: it is first opened
// O_PATH (which opens no device, FIFO or socket, and with O_NOFOLLOW
// holds a symlink itself), looked at, and only a regular file is opened
// again, through /proc/self/fd: the very file that was looked at. rel
// names it in errors.
func (d *Dir) openRegularOnly(name, rel string) (*os.File, error) {
	pfd, err := openatRetry(d.Fd(), name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathErr("open", rel, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := fstat(pfd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: rel, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s %w (%s)", rel, ErrNotRegular, typeName(fileMode(uint32(st.Mode))))
	}
	fd, err := openatRetry(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(pfd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		// No /proc: open the name again, and check it is the same file.
		fd, err = openatRetry(d.Fd(), name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, pathErr("open", rel, err)
		}
		var again unix.Stat_t
		if err := fstat(fd, &again); err != nil || again.Dev != st.Dev || again.Ino != st.Ino {
			unix.Close(fd)
			return nil, fmt.Errorf("open %s: %w", rel, ErrPathChanged)
		}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.name, name)), nil
}

// openLooked opens name, which Lstat just found to be the regular file
// fi, for reading, in one open: O_NOFOLLOW refuses a link swapped in
// since, O_NONBLOCK keeps a FIFO swapped in from hanging the open, and
// the file opened must be fi itself, or it is closed unread. A listing
// of many files pays one open per file instead of openRegularOnly's two
// and a /proc lookup. (What could slip between the look and the open is
// a device node of the same inode, and an unprivileged process can make
// none: mknod needs a privilege, and /dev's nodes cannot be linked into
// another file system.)
func (d *Dir) openLooked(name, rel string, fi os.FileInfo) (*os.File, error) {
	fd, err := d.openFd(name, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathErr("open", rel, err)
	}
	var st unix.Stat_t
	seen, ok := fi.(*statInfo)
	if err := fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || !ok || st.Dev != seen.st.Dev || st.Ino != seen.st.Ino {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: %w", rel, ErrPathChanged)
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.name, name)), nil
}
