//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is an open directory. Without openat and O_NOFOLLOW it is an
// os.Root: I/O cannot leave it, but a symlink inside it is followed.
type Dir struct {
	r *os.Root
}

// Close closes the directory.
func (d *Dir) Close() error { return d.r.Close() }

// OpenBeneath opens the directory rel (slash-separated, "." for root)
// below the directory root.
func OpenBeneath(root, rel string) (*Dir, error) {
	r, err := os.OpenRoot(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	return &Dir{r: r}, nil
}

func (d *Dir) OpenDir(name string) (*Dir, error) {
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &Dir{r: r}, nil
}

func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return d.r.OpenFile(name, flag, perm)
}

func (d *Dir) OpenSelf() (*os.File, error) { return d.r.Open(".") }

// entries lists d, unsorted.
func (d *Dir) entries() ([]fs.DirEntry, error) {
	f, err := d.OpenSelf()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (d *Dir) Readlink(name string) (string, error) { return d.r.Readlink(name) }

func (d *Dir) Exists(name string) (bool, error) {
	_, err := d.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (d *Dir) Rename(from, to string) error { return d.r.Rename(from, to) }
func (d *Dir) Link(from, to string) error   { return d.r.Link(from, to) }
func (d *Dir) Remove(name string) error     { return d.r.Remove(name) }

func (d *Dir) MkdirAll(rel string) (*Dir, error) {
	if err := d.r.MkdirAll(rel, 0o777); err != nil {
		return nil, err
	}
	return d.OpenDir(rel)
}

// Lstat stats name in d without following a final symlink.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) { return d.r.Lstat(name) }
