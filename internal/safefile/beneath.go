package safefile

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
)

// A file of a hostile tree (a cloned project, or what a command wrote
// in a run's layer) may be a symlink to ~/.git-credentials or /dev/zero,
// a FIFO that never answers, or a sparse file of terabytes. What reads
// such a tree on the host goes through these: nothing follows a symlink
// (on the way or at the end), nothing but a regular file is ever opened
// for reading (a device, a FIFO or a socket is only looked at), at most
// a limit is read into memory, and a long read stops when its context
// is done.

// readChunk is how much a streamed read takes between two looks at its
// context.
const readChunk = 1 << 20

// OpenRegularBeneath opens the regular file rel (slash-separated) below
// root for reading, following no symlink on the way or at rel itself. A
// file that is not regular (a symlink, a FIFO, a socket, a device) is
// never opened: it is looked at without being opened for reading, and
// refused with ErrNotRegular; a symlink on the way is ErrPathChanged.
func OpenRegularBeneath(root, rel string) (*os.File, fs.FileInfo, error) {
	dir, base, err := OpenParent(root, rel)
	if err != nil {
		return nil, nil, err
	}
	defer dir.Close()
	f, err := dir.openRegularOnly(base, rel)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// LstatBeneath returns what rel below root is, without following a
// symlink at rel or on the way to it, and without opening it: a
// symlink, a FIFO or a device is reported as such.
func LstatBeneath(root, rel string) (fs.FileInfo, error) {
	dir, base, err := OpenParent(root, rel)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return dir.Lstat(base)
}

// ReadlinkBeneath returns the target of the symlink rel below root,
// reached without following a symlink on the way.
func ReadlinkBeneath(root, rel string) (string, error) {
	dir, base, err := OpenParent(root, rel)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	return dir.Readlink(base)
}

// ReadBeneath reads the regular file rel below root (see
// OpenRegularBeneath) whole, if it holds at most limit bytes: a larger
// one is ErrTooLarge, and is not read at all. The read stops when ctx
// is done.
func ReadBeneath(ctx context.Context, root, rel string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegularBeneath(root, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fi, fmt.Errorf("%s %w (%d bytes; the limit is %d)", rel, ErrTooLarge, fi.Size(), limit)
	}
	b, err := readAllContext(ctx, f, fi.Size(), limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, fi, fmt.Errorf("%s %w (it grew past %d bytes while being read)", rel, ErrTooLarge, limit)
	}
	if err != nil {
		return nil, fi, fmt.Errorf("read %s: %w", rel, err)
	}
	return b, fi, nil
}

// HashBeneath returns the SHA-256 and the length of the regular file
// rel below root (see OpenRegularBeneath), streamed: a file of any size
// costs one buffer. It stops when ctx is done.
func HashBeneath(ctx context.Context, root, rel string) ([sha256.Size]byte, int64, error) {
	f, _, err := OpenRegularBeneath(root, rel)
	if err != nil {
		return [sha256.Size]byte{}, 0, err
	}
	defer f.Close()
	sum, n, err := HashReader(ctx, f)
	if err != nil {
		return sum, n, fmt.Errorf("read %s: %w", rel, err)
	}
	return sum, n, nil
}

// HashReader returns the SHA-256 of what r holds, and its length,
// streamed, stopping when ctx is done.
func HashReader(ctx context.Context, r io.Reader) ([sha256.Size]byte, int64, error) {
	h := sha256.New()
	n, err := CopyContext(ctx, h, r)
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum, n, err
}

// CopyContext is io.Copy by chunks, stopping when ctx is done.
func CopyContext(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, readChunk)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// readAllContext reads r, which fstat said holds size bytes, to its end
// or past limit (ErrTooLarge), looking at ctx between chunks.
func readAllContext(ctx context.Context, r io.Reader, size, limit int64) ([]byte, error) {
	b := make([]byte, 0, min(size, limit)+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		end := min(cap(b), len(b)+readChunk)
		k, err := r.Read(b[len(b):end])
		b = b[:len(b)+k]
		if int64(len(b)) > limit {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Entry is what Look found at a path: its kind and size, a symlink's
// target, a regular file's content.
type Entry struct {
	Info fs.FileInfo
	// Target is a symlink's target.
	Target string
	// Data is a regular file's content, when it held at most the limit
	// (nil otherwise, and for anything else).
	Data []byte
}

// Look tells what rel below root is, following no symlink on the way
// or at rel, with one walk to its directory: a symlink's target, and a
// regular file's content up to limit bytes (a larger one is not read;
// ErrTooLarge). Nothing but a regular file is opened for reading. The
// read stops when ctx is done.
func Look(ctx context.Context, root, rel string, limit int64) (Entry, error) {
	dir, base, err := OpenParent(root, rel)
	if err != nil {
		return Entry{}, err
	}
	defer dir.Close()
	return lookIn(ctx, dir, base, rel, limit)
}

// Tree looks at many paths below one root, keeping the directory it
// opened last for the next path: a listing in path order opens each
// directory once, not once per file. What it opened stays the directory
// that was checked, whatever its path names later. It is not safe for
// concurrent use; Close lets go of the directory.
type Tree struct {
	root   string
	parent string
	dir    *Dir
}

// NewTree returns a Tree over root; nothing is opened yet.
func NewTree(root string) *Tree { return &Tree{root: root} }

// Look is Look(ctx, t's root, rel, limit).
func (t *Tree) Look(ctx context.Context, rel string, limit int64) (Entry, error) {
	parent, base := path.Split(rel)
	if t.dir == nil || parent != t.parent {
		t.Close()
		dir, b, err := OpenParent(t.root, rel)
		if err != nil {
			return Entry{}, err
		}
		t.dir, t.parent, base = dir, parent, b
	}
	return lookIn(ctx, t.dir, base, rel, limit)
}

// Close closes the directory the Tree holds.
func (t *Tree) Close() {
	if t.dir != nil {
		t.dir.Close()
		t.dir = nil
	}
}

// lookIn is Look of the entry base of dir; rel names it in errors.
func lookIn(ctx context.Context, dir *Dir, base, rel string, limit int64) (Entry, error) {
	fi, err := dir.Lstat(base)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Info: fi}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Target, err = dir.Readlink(base)
		return e, err
	case !fi.Mode().IsRegular():
		return e, nil
	case fi.Size() > limit:
		return e, fmt.Errorf("%s %w (%d bytes; the limit is %d)", rel, ErrTooLarge, fi.Size(), limit)
	}
	f, err := dir.openLooked(base, rel, fi)
	if err != nil {
		return e, err
	}
	defer f.Close()
	if e.Info, err = f.Stat(); err != nil {
		return e, err
	}
	if e.Info.Size() > limit {
		return e, fmt.Errorf("%s %w (%d bytes; the limit is %d)", rel, ErrTooLarge, e.Info.Size(), limit)
	}
	e.Data, err = readAllContext(ctx, f, e.Info.Size(), limit)
	if errors.Is(err, ErrTooLarge) {
		return e, fmt.Errorf("%s %w (it grew past %d bytes while being read)", rel, ErrTooLarge, limit)
	}
	if err != nil {
		return e, fmt.Errorf("read %s: %w", rel, err)
	}
	if e.Data == nil {
		e.Data = []byte{}
	}
	return e, nil
}
