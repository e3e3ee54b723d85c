//go:build unix

package snapshot

import (
	"github.com/catbuddy/cb-ls/internal/safefile"
	"golang.org/x/sys/unix"
)

// stampIn stats name in d without following a symlink. The inode counts:
// a file replaced by rename keeps its size and may keep its mtime.
func stampIn(d *safefile.Dir, name string) (fileStamp, bool) {
	var st unix.Stat_t
	if unix.Fstatat(d.Fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fileStamp{}, false
	}
	return stampOfStat(&st), true
}

// stampPath stats a path without following a final symlink; directories
// are not stamped.
func stampPath(p string) (fileStamp, bool) {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return fileStamp{}, false
	}
	return stampOfStat(&st), true
}

func stampOfStat(st *unix.Stat_t) fileStamp {
	return fileStamp{size: st.Size, mtime: st.Mtim.Nano(), ino: uint64(st.Ino), mode: uint32(st.Mode)}
}
