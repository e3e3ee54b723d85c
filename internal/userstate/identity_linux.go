package userstate

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// identity is the folder's device, inode and birth time, "" when they
// cannot be told. The birth time matters: a folder removed and another
// made soon after often get the same inode, and a new checkout must not
// take over a deleted one's state.
func identity(path string) string {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return ""
	}
	if st.Mask&unix.STATX_BTIME == 0 {
		return "" // no birth time here: a moved folder starts with no state
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev_major, st.Dev_minor, st.Ino, st.Btime.Sec, st.Btime.Nsec)
}
