//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// inodeOf returns fi's inode number: a file replaced by rename keeps
// size and may keep mtime, but not its inode.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
