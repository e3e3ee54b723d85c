package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// Errors a Workspace wraps when a path is not a readable text document.
// Tools match them with errors.Is to answer the model precisely.
var (
	ErrIsDir      = errors.New("is a directory")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = errors.New("is too large")
)

// DiskWorkspace is the Workspace of the CLI: documents are files, read
// and written through the descriptor of their directory, reached from the
// admitting root without following a symlink (beneath.go), so that
// nothing outside the root, nor its .catbuddy/, is touched even if a
// symlink appears between check and use.
type DiskWorkspace struct {
	// Durable makes Apply fsync each file before renaming it into place.
	// It is off by default, as in the editors' own saves (VS Code does
	// not fsync): the rename already makes the write atomic for every
	// reader, and an fsync of a large file costs more than the edit
	// (about 130 ms for 10 MB on the CI disk).
	Durable bool
}

// maxFileSize bounds what Read loads into memory.
const maxFileSize = 64 << 20

// Read implements Workspace.
func (DiskWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	dir, base, err := openParent(p)
	if err != nil {
		return Document{}, err
	}
	defer dir.Close()
	return readIn(dir, base, p.Rel)
}

// openParent opens the directory holding p (see beneath.go) and returns
// it with p's last element.
func openParent(p guard.Path) (*dirFD, string, error) {
	parent, base := path.Split(p.Rel)
	if parent == "" {
		parent = "."
	}
	dir, err := openBeneath(p.Root, strings.TrimSuffix(parent, "/"))
	if err != nil {
		return nil, "", err
	}
	return dir, base, nil
}

// readIn reads name inside dir; rel names it in errors.
func readIn(dir *dirFD, name, rel string) (Document, error) {
	f, fi, err := openRegular(dir, name, rel)
	if err != nil {
		return Document{}, err
	}
	defer f.Close()
	// Size+1 so that growth between Stat and read is noticed; the stamp
	// is taken before the read, so a write racing it makes the stamp
	// stale (a later re-read sees a change), never the other way round.
	buf := make([]byte, 0, fi.Size()+1)
	content, err := readAllInto(buf, io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Document{}, fmt.Errorf("read %s: %w", rel, err)
	}
	if len(content) > maxFileSize {
		return Document{}, fmt.Errorf("%s %w (over %d MB)", rel, ErrTooLarge, maxFileSize>>20)
	}
	return Document{Content: content, Stamp: stampOf(fi), Mode: fi.Mode().Perm()}, nil
}

// openRegular opens name inside dir for reading, without following a
// symlink. It opens non-blocking, so that a FIFO or device swapped in
// after the guard's check cannot hang the read, and checks the opened
// file itself: what is read is what was checked.
func openRegular(dir *dirFD, name, rel string) (*os.File, fs.FileInfo, error) {
	f, err := dir.openFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// holds reports whether name inside dir has exactly the bytes want,
// comparing block by block so that the check of a large file allocates
// nothing the size of the file. It also returns the file's mode.
func holds(dir *dirFD, name, rel string, want []byte) (bool, fs.FileMode, error) {
	f, fi, err := openRegular(dir, name, rel)
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

func checkRegular(rel string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s %w", rel, ErrIsDir)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s %w (%s)", rel, ErrNotRegular, typeName(fi.Mode()))
	case fi.Size() > maxFileSize:
		return fmt.Errorf("%s %w (%d bytes; the limit is %d MB)", rel, ErrTooLarge, fi.Size(), maxFileSize>>20)
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

// Apply implements Workspace: ApplyAll of one change. Every step works
// through the descriptor of the file's directory, opened without
// following a symlink (beneath.go), so the write lands in the directory
// the guard admitted even if its path is swapped meanwhile.
func (w DiskWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	docs, err := w.ApplyAll(ctx, []Change{c})
	if err != nil {
		return Document{}, err
	}
	return docs[0], nil
}

// writeTemp writes content to a new, uniquely named file beside name in
// dir and returns its name and its state after the write (a rename keeps
// the modification time, so this is the stamp of the renamed file too).
func writeTemp(dir *dirFD, name string, content []byte, mode fs.FileMode, create, durable bool) (string, fs.FileInfo, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".cb-tmp"
	perm := mode.Perm()
	if create {
		perm = 0o666 // umask applies, as for a file any editor creates
	}
	f, err := dir.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", nil, err
	}
	_, err = f.Write(content)
	if err == nil && durable {
		err = f.Sync()
	}
	if err == nil && !create {
		err = f.Chmod(perm) // the umask must not narrow an existing file's mode
	}
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dir.remove(tmp)
		return "", nil, err
	}
	return tmp, fi, nil
}

// applyLocks serialise Apply per file within the process; striped so
// that the set never grows.
var applyLocks [64]sync.Mutex

var lockSeed = maphash.MakeSeed()

func applyLockIndex(abs string) int {
	return int(maphash.String(lockSeed, abs) % uint64(len(applyLocks)))
}

func stampOf(fi fs.FileInfo) filestate.Stamp {
	return filestate.Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Version: -1}
}
