package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors that say why a path is not a readable text document. Callers
// match them with errors.Is to answer precisely.
var (
	ErrIsDir      = errors.New("is a directory")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = errors.New("is too large")
)

// MaxFileSize bounds what ReadRegular loads into memory.
const MaxFileSize = 64 << 20

// ReadRegular reads the regular file name inside d; rel names it in
// errors. The FileInfo is taken before the read, so a write racing it
// makes the caller's stamp stale (a later re-read sees a change), never
// the other way round.
func (d *Dir) ReadRegular(name, rel string) ([]byte, fs.FileInfo, error) {
	f, fi, err := d.OpenRegular(name, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Size+1 so that growth between Stat and read is noticed.
	buf := make([]byte, 0, fi.Size()+1)
	content, err := readAllInto(buf, io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if len(content) > MaxFileSize {
		return nil, nil, fmt.Errorf("%s %w (over %d MB)", rel, ErrTooLarge, MaxFileSize>>20)
	}
	return content, fi, nil
}

// OpenRegular opens name inside d for reading, without following a
// symlink. It opens non-blocking, so that a FIFO or device swapped in
// after the guard's check cannot hang the read, and checks the opened
// file itself: what is read is what was checked.
func (d *Dir) OpenRegular(name, rel string) (*os.File, fs.FileInfo, error) {
	f, err := d.OpenFile(name, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = CheckRegular(rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Holds reports whether name inside d has exactly the bytes want,
// comparing block by block so that the check of a large file allocates
// nothing the size of the file. It also returns the file's mode.
func (d *Dir) Holds(name, rel string, want []byte) (bool, fs.FileMode, error) {
	f, fi, err := d.OpenRegular(name, rel)
	if err != nil {
		return false, 0, err
	}
	defer f.Close()
	if fi.Size() != int64(len(want)) {
		return false, fi.Mode().Perm(), nil
	}
	buf := make([]byte, 256<<10)
	off := 0
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if off+n > len(want) || !bytes.Equal(buf[:n], want[off:off+n]) {
				return false, fi.Mode().Perm(), nil
			}
			off += n
		}
		if err == io.EOF {
			return off == len(want), fi.Mode().Perm(), nil
		}
		if err != nil {
			return false, 0, fmt.Errorf("read %s: %w", rel, err)
		}
	}
}

// CheckRegular returns why fi, the file rel, cannot be read as a
// document: a directory, not a regular file, or over MaxFileSize.
func CheckRegular(rel string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s %w", rel, ErrIsDir)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s %w (%s)", rel, ErrNotRegular, typeName(fi.Mode()))
	case fi.Size() > MaxFileSize:
		return fmt.Errorf("%s %w (%d bytes; the limit is %d MB)", rel, ErrTooLarge, fi.Size(), MaxFileSize>>20)
	}
	return nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// readAllInto is io.ReadAll into a buffer sized from Stat, which saves
// the repeated growth of io.ReadAll on large files.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
