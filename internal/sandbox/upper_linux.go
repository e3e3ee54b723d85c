package sandbox

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// The upper directory of a layer is the change set: ScanUpper walks it,
// never the whole folder, and looks at the lower folder only where
// the upper one has an entry (and, beneath an opaque directory, at
// that directory's lower entries). overlayfs (with userxattr) writes:
//   - a whole copy of every file created or changed (its mode and times
//     too: chmod alone copies the file up);
//   - for every directory on the way, a directory, merged with the
//     lower one unless marked opaque;
//   - a whiteout, a character device 0/0, for each lower entry deleted;
//   - an opaque directory (user.overlay.opaque = "y") where a directory
//     was deleted and made again: nothing of the lower one shows there.

// opaqueXattr marks an opaque directory under the userxattr option.
const opaqueXattr = "user.overlay.opaque"

// ScanUpper lists what the layer with this upper directory changes in
// its lower folder, sorted by path. A whiteout over nothing (the file
// was deleted from the folder since) changes nothing and is left out;
// a missing upper directory is a layer that changes nothing yet.
func ScanUpper(upper, lower string) ([]UpperEntry, error) {
	if _, err := os.Stat(upper); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s := scan{upper: upper, lower: lower}
	if err := s.dir("", false); err != nil {
		return nil, err
	}
	slices.SortFunc(s.out, func(a, b UpperEntry) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return s.out, nil
}

type scan struct {
	upper, lower string
	out          []UpperEntry
}

// dir scans the upper directory rel. hidden says that the lower
// directory rel does not show through (rel or a directory above it is
// opaque): every lower entry that upper lacks is then deleted.
func (s *scan) dir(rel string, hidden bool) error {
	f, err := os.Open(filepath.Join(s.upper, rel))
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		p := path.Join(rel, name)
		fi, err := os.Lstat(filepath.Join(s.upper, p))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		lfi, lerr := os.Lstat(filepath.Join(s.lower, p))
		inLower := lerr == nil
		if isWhiteout(fi) {
			if inLower && !hidden {
				s.out = append(s.out, UpperEntry{Path: p, Change: Deleted, LowerMode: lfi.Mode()})
			}
			continue
		}
		present[name] = true
		e := UpperEntry{Path: p, Mode: fi.Mode(), Size: fi.Size()}
		if inLower {
			e.LowerMode = lfi.Mode()
		}
		switch {
		case !inLower:
			e.Change = Created
		case fi.Mode().Type() != lfi.Mode().Type():
			e.Change = Replaced
		case fi.IsDir():
			opaque := isOpaque(filepath.Join(s.upper, p))
			switch {
			case opaque && !hidden:
				e.Change = Replaced
			case fi.Mode().Perm() != lfi.Mode().Perm():
				e.Change, e.ModeOnly = Changed, true
			}
		default:
			e.Change = Changed
			if fi.Mode().IsRegular() && fi.Mode().Perm() != lfi.Mode().Perm() && fi.Size() == lfi.Size() {
				e.ModeOnly = sameContent(filepath.Join(s.upper, p), filepath.Join(s.lower, p))
			}
		}
		if fi.Mode().Type() == fs.ModeSymlink {
			if e.Target, err = os.Readlink(filepath.Join(s.upper, p)); err != nil {
				return err
			}
		}
		if e.Change != 0 {
			s.out = append(s.out, e)
		}
		if fi.IsDir() {
			under := hidden || e.Change == Replaced && inLower && lfi.IsDir()
			if err := s.dir(p, under); err != nil {
				return err
			}
		}
	}
	if !hidden {
		return nil
	}
	// Beneath an opaque directory the lower entries upper lacks are gone.
	lf, err := os.Open(filepath.Join(s.lower, rel))
	if err != nil {
		return nil // nothing there, or not a directory: nothing hidden
	}
	lnames, err := lf.Readdirnames(-1)
	lf.Close()
	if err != nil {
		return err
	}
	for _, name := range lnames {
		if present[name] {
			continue
		}
		p := path.Join(rel, name)
		if lfi, err := os.Lstat(filepath.Join(s.lower, p)); err == nil {
			s.out = append(s.out, UpperEntry{Path: p, Change: Deleted, LowerMode: lfi.Mode()})
		}
	}
	return nil
}

// isWhiteout reports whether fi is overlayfs's mark of a deleted entry:
// a character device with device number 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	if fi.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Rdev) == 0
}

// isOpaque reports whether the upper directory dir hides its lower one.
func isOpaque(dir string) bool {
	buf := make([]byte, 8)
	n, err := unix.Lgetxattr(dir, opaqueXattr, buf)
	return err == nil && n == 1 && buf[0] == 'y'
}

// sameContent reports whether files a and b hold the same bytes.
func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}
