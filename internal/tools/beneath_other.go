//go:build !unix

package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// dirFD is an open directory. Without openat and O_NOFOLLOW it is an
// os.Root: I/O cannot leave it, but a symlink inside it is followed.
type dirFD struct {
	r *os.Root
}

// Close closes the directory.
func (d *dirFD) Close() error { return d.r.Close() }

func openBeneath(root, rel string) (*dirFD, error) {
	r, err := os.OpenRoot(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	return &dirFD{r: r}, nil
}

func (d *dirFD) openDir(name string) (*dirFD, error) {
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirFD{r: r}, nil
}

func (d *dirFD) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return d.r.OpenFile(name, flag, perm)
}

func (d *dirFD) openSelf() (*os.File, error) { return d.r.Open(".") }

func (d *dirFD) readlink(name string) (string, error) { return d.r.Readlink(name) }

func (d *dirFD) exists(name string) (bool, error) {
	_, err := d.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (d *dirFD) rename(from, to string) error { return d.r.Rename(from, to) }
func (d *dirFD) link(from, to string) error   { return d.r.Link(from, to) }
func (d *dirFD) remove(name string) error     { return d.r.Remove(name) }

func (d *dirFD) mkdirAll(rel string) (*dirFD, error) {
	if err := d.r.MkdirAll(rel, 0o777); err != nil {
		return nil, err
	}
	return d.openDir(rel)
}
