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
