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
	"path/filepath"
	"sync"

	"github.com/catbuddy/cb-ls/filestate"
	"github.com/catbuddy/cb-ls/guard"
)

// Errors a Workspace wraps when a path is not a readable text document.
// Tools match them with errors.Is to answer the model precisely.
var (
	ErrIsDir      = errors.New("is a directory")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = errors.New("is too large")
)

// DiskWorkspace is the Workspace of the CLI: documents are files, read
// and written through os.Root so that nothing outside the admitting root
// is touched even if a symlink appears between check and use.
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
	root, err := os.OpenRoot(p.Root)
	if err != nil {
		return Document{}, fmt.Errorf("open root %s: %w", p.Root, err)
	}
	defer root.Close()
	return readIn(root, p.Rel)
}

// readIn reads rel inside root.
func readIn(root *os.Root, rel string) (Document, error) {
	f, fi, err := openRegular(root, rel)
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

// openRegular opens rel inside root for reading. Devices, FIFOs and
// sockets are refused before they are opened so that a read can never
// hang; the opened file is checked again, since the path may have been
// swapped meanwhile.
func openRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	name := filepath.FromSlash(rel)
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(rel, fi); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = checkRegular(rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// holds reports whether rel inside root has exactly the bytes want,
// comparing block by block so that the check of a large file allocates
// nothing the size of the file. It also returns the file's mode.
func holds(root *os.Root, rel string, want []byte) (bool, fs.FileMode, error) {
	f, fi, err := openRegular(root, rel)
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

// Apply implements Workspace: it checks that the file still holds
// c.Base, writes c.After to a temporary file beside it and renames it
// into place, keeping the file's mode. A new file is linked into place
// instead, which fails if someone created the file meanwhile.
func (w DiskWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	root, err := os.OpenRoot(c.Path.Root)
	if err != nil {
		return Document{}, fmt.Errorf("open root %s: %w", c.Path.Root, err)
	}
	defer root.Close()
	rel := filepath.FromSlash(c.Path.Rel)

	// Two runs of this process writing one file: the base check and the
	// rename must not interleave, or the second would overwrite the
	// first unseen.
	mu := applyLock(c.Path.Abs)
	mu.Lock()
	defer mu.Unlock()

	same, mode, err := holds(root, c.Path.Rel, c.Base.Content)
	switch {
	case c.Create && err == nil:
		return Document{}, fmt.Errorf("%w: %s was created by someone else meanwhile; read it first", ErrRejected, c.Path.Rel)
	case c.Create && errors.Is(err, fs.ErrNotExist):
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o777); err != nil { // umask applies, as for any new directory
				return Document{}, fmt.Errorf("create directory %s: %w", filepath.ToSlash(dir), err)
			}
		}
	case err != nil:
		return Document{}, err
	case !same:
		return Document{}, fmt.Errorf("%w: %s changed on disk since it was read; read it again", ErrRejected, c.Path.Rel)
	}

	tmp, fi, err := writeTemp(root, rel, c.After, mode, c.Create, w.Durable)
	if err != nil {
		return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, err)
	}
	if c.Create {
		err = root.Link(tmp, rel)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A filesystem without hard links: fall back to a checked
			// rename, which leaves only a tiny window for a racing create.
			if _, serr := root.Lstat(rel); errors.Is(serr, fs.ErrNotExist) {
				err = root.Rename(tmp, rel)
			}
		}
		_ = root.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			return Document{}, fmt.Errorf("%w: %s was created by someone else meanwhile; read it first", ErrRejected, c.Path.Rel)
		}
	} else {
		err = root.Rename(tmp, rel)
		if err != nil {
			_ = root.Remove(tmp)
		}
	}
	if err != nil {
		return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, err)
	}
	return Document{Content: c.After, Stamp: stampOf(fi), Mode: fi.Mode().Perm()}, nil
}

// writeTemp writes content to a new, uniquely named file beside rel and
// returns its name and its state after the write (a rename keeps the
// modification time, so this is the stamp of the renamed file too).
func writeTemp(root *os.Root, rel string, content []byte, mode fs.FileMode, create, durable bool) (string, fs.FileInfo, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+"."+hex.EncodeToString(rnd[:])+".cb-tmp")
	perm := mode.Perm()
	if create {
		perm = 0o666 // umask applies, as for a file any editor creates
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
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
		_ = root.Remove(tmp)
		return "", nil, err
	}
	return tmp, fi, nil
}

// applyLocks serialise Apply per file within the process; striped so
// that the set never grows.
var applyLocks [64]sync.Mutex

var lockSeed = maphash.MakeSeed()

func applyLock(abs string) *sync.Mutex {
	return &applyLocks[maphash.String(lockSeed, abs)%uint64(len(applyLocks))]
}

func stampOf(fi fs.FileInfo) filestate.Stamp {
	return filestate.Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Version: -1}
}
