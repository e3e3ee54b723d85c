//go:build !unix

package snapshot

import (
	"io/fs"
	"os"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// stampIn stats name in d without following a symlink; there are no inode
// numbers here, so size, mtime and mode show a change.
func stampIn(d *safefile.Dir, name string) (fileStamp, bool) {
	fi, err := d.Lstat(name)
	if err != nil {
		return fileStamp{}, false
	}
	return stampOfInfo(fi), true
}

// stampPath stats a path without following a final symlink; directories
// are not stamped.
func stampPath(p string) (fileStamp, bool) {
	fi, err := os.Lstat(p)
	if err != nil || fi.IsDir() {
		return fileStamp{}, false
	}
	return stampOfInfo(fi), true
}

func stampOfInfo(fi fs.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}
