package changeset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// MaxDiffSize is the size over which a pending file is not diffed but
// one whole-file item, compared by size and SHA-256 (streamed) and
// never read whole into memory. A front end may set it from its
// configuration before it opens a Store.
var MaxDiffSize int64 = 8 << 20

// Every read of a workspace file or of the layer goes through readSide:
// the tree is hostile (a cloned project, or a command a prompt-injected
// model ran), so nothing follows a symlink, nothing but a regular file
// is opened (a FIFO would hang the read, a device never end it), and at
// most MaxDiffSize is read.

// pathMax is Linux's PATH_MAX: a longer path cannot be named whole.
const pathMax = 4096

// Form is what one side of a pending change holds at its path.
type Form string

// The forms of a side.
const (
	FormNone     Form = ""          // nothing: the file does not exist there
	FormText     Form = "text"      // a text file, diffed line by line
	FormBinary   Form = "binary"    // a regular file that is not text
	FormNotUTF8  Form = "not UTF-8" // text in another encoding (Latin-1): no text edit carries its bytes
	FormBig      Form = "big"       // a regular file over MaxDiffSize
	FormLink     Form = "link"      // a symbolic link, never followed
	FormFIFO     Form = "fifo"      // a named pipe
	FormSocket   Form = "socket"    // a Unix socket
	FormDevice   Form = "device"    // a device node
	FormDir      Form = "directory" // a directory (a file replaced by one)
	FormLongPath Form = "long path" // a path longer than the system allows
)

// regular reports whether a side of this form is a regular file.
func (f Form) regular() bool {
	return f == FormText || f == FormBinary || f == FormNotUTF8 || f == FormBig
}

// side is one side of a pending change, the base or the pending one, as
// read safely from root.
type side struct {
	root, rel string // where it was read, for a hash taken later
	form      Form
	mode      fs.FileMode
	size      int64
	target    string // a link's target
	data      []byte // a text or binary file's content
}

// readSide reads rel below root as one side of a change.
func readSide(ctx context.Context, root, rel string) (side, error) {
	return readSideIn(ctx, nil, root, rel)
}

// readSideIn is readSide through tree, a safefile.Tree over root (nil:
// open the way to rel afresh).
func readSideIn(ctx context.Context, tree *safefile.Tree, root, rel string) (side, error) {
	sd := side{root: root, rel: rel}
	if len(root)+1+len(rel) >= pathMax {
		// Reachable one directory at a time, but no tool of the user's
		// can name it.
		sd.form = FormLongPath
		return sd, nil
	}
	var e safefile.Entry
	var err error
	if tree != nil {
		e, err = tree.Look(ctx, rel, MaxDiffSize)
	} else {
		e, err = safefile.Look(ctx, root, rel, MaxDiffSize)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sd, nil
	case errors.Is(err, syscall.ENAMETOOLONG):
		sd.form = FormLongPath
		return sd, nil
	case errors.Is(err, safefile.ErrTooLarge) && e.Info != nil:
		sd.mode, sd.size = e.Info.Mode(), e.Info.Size()
		sd.form = FormBig
		return sd, nil
	case err != nil:
		return sd, err
	}
	fi := e.Info
	sd.mode, sd.size = fi.Mode(), fi.Size()
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		sd.form, sd.target = FormLink, e.Target
		return sd, nil
	case m&fs.ModeNamedPipe != 0:
		sd.form = FormFIFO
		return sd, nil
	case m&fs.ModeSocket != 0:
		sd.form = FormSocket
		return sd, nil
	case m&fs.ModeDevice != 0:
		sd.form = FormDevice
		return sd, nil
	case m.IsDir():
		sd.form = FormDir
		return sd, nil
	}
	sd.data, sd.size = e.Data, int64(len(e.Data))
	switch {
	case safefile.LooksBinary(e.Data):
		sd.form = FormBinary
	case !utf8.Valid(e.Data):
		// The editor's buffers and LSP's text edits are UTF-8: a line
		// diff sent as a text edit would land U+FFFD for its bytes.
		sd.form = FormNotUTF8
	default:
		sd.form = FormText
	}
	return sd, nil
}

// same reports whether a and b hold the same: the same form, and the
// same target, or the same bytes (by size, then by a streamed SHA-256
// when neither was read whole).
func same(ctx context.Context, a, b side) (bool, error) {
	if a.form.regular() && b.form.regular() {
		if a.size != b.size {
			return false, nil
		}
		if a.data != nil && b.data != nil {
			return bytes.Equal(a.data, b.data), nil
		}
		sa, err := a.sum(ctx)
		if err != nil {
			return false, err
		}
		sb, err := b.sum(ctx)
		return err == nil && sa == sb, err
	}
	if a.form != b.form {
		return false, nil
	}
	return a.target == b.target, nil
}

// sum is the SHA-256 of a regular side, streamed from where it was read.
func (sd side) sum(ctx context.Context) ([32]byte, error) {
	if sd.data != nil {
		return sha256.Sum256(sd.data), nil
	}
	sum, _, err := safefile.HashBeneath(ctx, sd.root, sd.rel)
	return sum, err
}

// whole reports whether a change between base and pending is one
// whole-file item rather than a line diff.
func whole(base, pending side) bool {
	ok := func(f Form) bool { return f == FormNone || f == FormText }
	return !ok(base.form) || !ok(pending.form)
}

// baseRoot is where rel's base is read from: the folder itself for a
// record whose base the layer never writes (Lower), else the set's copy.
// ok is false for a file the run created (no base).
func (f *folder) baseRoot(rel string) (string, bool) {
	r, ok := f.files[rel]
	if !ok || !r.Existed {
		return "", false
	}
	if r.Lower {
		return f.root, true
	}
	return filepath.Join(f.dir, baseDir), true
}

// baseSide reads rel's base safely; FormNone for a file the run created.
func (f *folder) baseSide(ctx context.Context, rel string) (side, error) {
	root, ok := f.baseRoot(rel)
	if !ok {
		return side{rel: rel}, nil
	}
	sd, err := readSideIn(ctx, f.tree(root), root, rel)
	if err != nil {
		return sd, fmt.Errorf("base of %s: %w", rel, err)
	}
	return sd, nil
}

// pendingSide reads what the layer holds at rel safely.
func (f *folder) pendingSide(ctx context.Context, rel string) (side, error) {
	sd, err := readSideIn(ctx, f.tree(f.layer.Upper), f.layer.Upper, rel)
	if err != nil {
		return sd, fmt.Errorf("%s in the run's layer: %w", rel, err)
	}
	return sd, nil
}

// baseText returns rel's base text (empty for a file the run created),
// read safely: what readBase did, without following a link and with a
// bound.
func (f *folder) baseText(ctx context.Context, rel string) ([]byte, error) {
	sd, err := f.baseSide(ctx, rel)
	if err != nil {
		return nil, err
	}
	if sd.form != FormNone && !sd.form.regular() || sd.form == FormBig {
		return nil, fmt.Errorf("base of %s: %w (%s)", rel, safefile.ErrNotRegular, sd.form)
	}
	return sd.data, nil
}

// upperText returns the layer's content at rel, its mode, and whether
// it is a regular file there within MaxDiffSize: what readUpper did,
// safely.
func (f *folder) upperText(ctx context.Context, rel string) ([]byte, fs.FileMode, bool) {
	b, fi, err := safefile.ReadBeneath(ctx, f.layer.Upper, rel, MaxDiffSize)
	if err != nil {
		return nil, 0, false
	}
	if b == nil {
		b = []byte{}
	}
	return b, fi.Mode().Perm(), true
}

// listing keeps, while f's files are listed in path order, one
// safefile.Tree per place the sides are read from (the layer, the
// folder, the stored bases), so each directory is opened once. done
// closes them; outside a listing every read opens its way afresh.
func (f *folder) listing() (done func()) {
	f.trees = map[string]*safefile.Tree{}
	return func() {
		for _, t := range f.trees {
			t.Close()
		}
		f.trees = nil
	}
}

// tree returns the listing's Tree over root, or nil outside a listing.
func (f *folder) tree(root string) *safefile.Tree {
	if f.trees == nil {
		return nil
	}
	t, ok := f.trees[root]
	if !ok {
		t = safefile.NewTree(root)
		f.trees[root] = t
	}
	return t
}
