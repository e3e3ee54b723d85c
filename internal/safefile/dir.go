package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// ErrPathChanged is returned when a symlink appeared on an admitted path
// between the guard's check and the open.
var ErrPathChanged = errors.New("changed while it was being opened (a symbolic link appeared on the way); try again")

// ReadDir lists d, sorted by name.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	ents, err := d.entries()
	if err != nil && len(ents) == 0 {
		return nil, err
	}
	// os.File.ReadDir does not sort; name order keeps listings stable.
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// OpenParent opens the directory holding rel (slash-separated, below
// the real directory root) and returns it with rel's last element.
func OpenParent(root, rel string) (*Dir, string, error) {
	parent, base := path.Split(rel)
	if parent == "" {
		parent = "."
	}
	dir, err := OpenBeneath(root, strings.TrimSuffix(parent, "/"))
	if err != nil {
		return nil, "", err
	}
	return dir, base, nil
}

// Stat stats rel below root, reached without following a symlink: the
// guard has resolved them all.
func Stat(root, rel string) (fs.FileInfo, error) {
	dir, base, err := OpenParent(root, rel)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := dir.OpenFile(base, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
