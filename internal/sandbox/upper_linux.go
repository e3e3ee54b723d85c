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
	"strings"
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
	ufd, err := unix.Open(upper, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: upper, Err: err}
	}
	// The lower folder may lack any directory of the layer: -1 then.
	lfd, _ := unix.Open(lower, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	s := scan{upper: upper, lower: lower}
	err = s.dir("", ufd, lfd, false)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(s.out, func(a, b UpperEntry) int { return strings.Compare(a.Path, b.Path) })
	return s.out, nil
}

type scan struct {
	upper, lower string
	out          []UpperEntry
}

// dir scans the upper directory rel, open as ufd, against the lower
// one, open as lfd (or -1); it closes both. Each entry is looked at
// relative to its directory's descriptor: a path from the root would
// cost a lookup per component. hidden says that the lower directory
// does not show through (rel or a directory above it is opaque): every
// lower entry that upper lacks is then deleted.
func (s *scan) dir(rel string, ufd, lfd int, hidden bool) error {
	defer unix.Close(ufd)
	if lfd >= 0 {
		defer unix.Close(lfd)
	}
	names, err := readNames(ufd)
	if err != nil {
		return &fs.PathError{Op: "readdir", Path: filepath.Join(s.upper, rel), Err: err}
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		p := path.Join(rel, name)
		var st, lst unix.Stat_t
		if err := unix.Fstatat(ufd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if err == unix.ENOENT {
				continue
			}
			return &fs.PathError{Op: "lstat", Path: filepath.Join(s.upper, p), Err: err}
		}
		inLower := lfd >= 0 && unix.Fstatat(lfd, name, &lst, unix.AT_SYMLINK_NOFOLLOW) == nil
		mode, lmode := fileMode(st.Mode), fs.FileMode(0)
		if inLower {
			lmode = fileMode(lst.Mode)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == 0 { // a whiteout
			if inLower && !hidden {
				s.out = append(s.out, UpperEntry{Path: p, Change: Deleted, LowerMode: lmode})
			}
			continue
		}
		present[name] = true
		e := UpperEntry{Path: p, Mode: mode, Size: st.Size, LowerMode: lmode}
		isDir := mode.IsDir()
		childU, childL := -1, -1
		if isDir {
			if childU, err = unix.Openat(ufd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
				return &fs.PathError{Op: "open", Path: filepath.Join(s.upper, p), Err: err}
			}
		}
		switch {
		case !inLower:
			e.Change = Created
		case mode.Type() != lmode.Type():
			e.Change = Replaced
		case isDir:
			switch {
			case !hidden && isOpaque(childU):
				e.Change = Replaced
			case mode.Perm() != lmode.Perm():
				e.Change, e.ModeOnly = Changed, true
			}
		default:
			e.Change = Changed
			if mode.IsRegular() && mode.Perm() != lmode.Perm() && st.Size == lst.Size {
				e.ModeOnly = sameContent(filepath.Join(s.upper, p), filepath.Join(s.lower, p))
			}
		}
		if mode.Type() == fs.ModeSymlink {
			if e.Target, err = readlinkat(ufd, name); err != nil {
				return &fs.PathError{Op: "readlink", Path: filepath.Join(s.upper, p), Err: err}
			}
		}
		if e.Change != 0 {
			s.out = append(s.out, e)
		}
		if isDir {
			if inLower && lmode.IsDir() {
				childL, _ = unix.Openat(lfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
			if err := s.dir(p, childU, childL, hidden || e.Change == Replaced && childL >= 0); err != nil {
				return err
			}
		}
	}
	if !hidden || lfd < 0 {
		return nil
	}
	// Beneath an opaque directory the lower entries upper lacks are gone.
	lnames, err := readNames(lfd)
	if err != nil {
		return &fs.PathError{Op: "readdir", Path: filepath.Join(s.lower, rel), Err: err}
	}
	for _, name := range lnames {
		var lst unix.Stat_t
		if !present[name] && unix.Fstatat(lfd, name, &lst, unix.AT_SYMLINK_NOFOLLOW) == nil {
			s.out = append(s.out, UpperEntry{Path: path.Join(rel, name), Change: Deleted, LowerMode: fileMode(lst.Mode)})
		}
	}
	return nil
}

// readNames lists the directory open as fd, without . and .., from
// its start.
func readNames(fd int) ([]string, error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// fileMode converts a stat mode to an fs.FileMode, as os.Lstat does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
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

// isOpaque reports whether the upper directory open as fd hides its
// lower one.
func isOpaque(fd int) bool {
	buf := make([]byte, 8)
	n, err := unix.Fgetxattr(fd, opaqueXattr, buf)
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
