//go:build unix && !linux

package safefile

import (
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// entries lists d, unsorted, through a duplicate of its descriptor,
// which shares its offset: a second listing seeks back to the start.
func (d *Dir) entries() ([]fs.DirEntry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), d.name)
	defer f.Close()
	if d.listed {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	d.listed = true
	return f.ReadDir(-1)
}
