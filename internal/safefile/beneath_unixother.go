//go:build unix && !linux

package safefile

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openRegularOnly opens the entry name of d for reading if it is a
// regular file. Without O_PATH it is looked at first (fstatat), then
// opened non-blocking without following a symlink, and checked to be
// the file that was looked at.
func (d *Dir) openRegularOnly(name, rel string) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.Fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, pathErr("stat", rel, err)
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s %w (%s)", rel, ErrNotRegular, typeName(fileMode(uint32(st.Mode))))
	}
	fd, err := openatRetry(d.Fd(), name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathErr("open", rel, err)
	}
	var again unix.Stat_t
	if err := fstat(fd, &again); err != nil || again.Dev != st.Dev || again.Ino != st.Ino {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: %w", rel, ErrPathChanged)
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.name, name)), nil
}

// openLooked is openRegularOnly here: name was just looked at (fi).
func (d *Dir) openLooked(name, rel string, _ os.FileInfo) (*os.File, error) {
	return d.openRegularOnly(name, rel)
}
