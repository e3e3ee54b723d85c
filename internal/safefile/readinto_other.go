//go:build !unix

package safefile

import (
	"io"
	"os"
)

// ReadInto reads the regular file name inside d into buf, reused: it
// returns the content, in buf when it fits. A file over limit is
// ErrTooLarge and anything but a regular file ErrNotRegular.
func (d *Dir) ReadInto(name string, buf []byte, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if fi.Size() > limit {
		return nil, ErrTooLarge
	}
	content, err := readAllInto(buf[:0], io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(content)) > limit {
		return nil, ErrTooLarge
	}
	return content, nil
}

// ReadMapped is ReadInto where files are not mapped: mapped is false.
func (d *Dir) ReadMapped(name string, buf []byte, limit int64) (content []byte, mapped bool, err error) {
	content, err = d.ReadInto(name, buf, limit)
	return content, false, err
}

// Unmap releases content that ReadMapped mapped: nothing here.
func Unmap([]byte) error { return nil }

// Prefault maps in content ahead of a read: nothing here.
func Prefault([]byte) {}
