//go:build !linux

package safefile

import "io/fs"

// DirEnt is one entry of a directory listing.
type DirEnt struct {
	Name string
	Type fs.FileMode // type bits only: fs.ModeDir, fs.ModeSymlink, 0 for a regular file…
}

// List lists d, unsorted, appending to ents (reused by the caller); buf
// is unused here.
func (d *Dir) List(ents []DirEnt, buf *[]byte) ([]DirEnt, error) {
	list, err := d.entries()
	for _, e := range list {
		ents = append(ents, DirEnt{Name: e.Name(), Type: e.Type()})
	}
	if err != nil && len(list) == 0 {
		return ents, err
	}
	return ents, nil
}
