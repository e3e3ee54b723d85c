package guard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symlinks followed in one resolution, like the
// kernel's ELOOP limit, so a link loop ends with a clear error.
const maxLinks = 40

var errLoop = errors.New("cannot be resolved: too many levels of symbolic links (a link loop?)")

// resolveReal resolves abs (clean and absolute) one component at a time,
// starting below start, which must be a real directory that is a
// component-wise prefix of abs. It follows every symlink it meets, also a
// dangling one (whose target is then taken as the path to create), so
// the result is the real path any later open would reach. The first
// missing component ends the walk: nothing below it can be a link. fi
// describes the final component, or is nil if it does not exist.
func resolveReal(start, abs string) (real string, fi fs.FileInfo, err error) {
	cur := start
	rest := splitPath(strings.TrimPrefix(abs, start))
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			// cur is real, so its lexical parent is its physical parent.
			cur = filepath.Dir(cur)
			fi = nil
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			tail := filepath.Join(append([]string{next}, rest...)...)
			if !containsDotDot(rest) {
				return tail, nil, nil
			}
			// "missing/../link/x": the ".." may climb back to existing
			// parts whose links must still be followed. Clean lexically
			// (there is nothing physical to climb out of) and go again.
			if links++; links > maxLinks {
				return "", nil, errLoop
			}
			cur, rest = "/", splitPath(tail)
			fi = nil
			continue
		case errors.Is(err, syscall.ENOTDIR):
			return "", nil, errors.New("cannot be resolved: " + filepath.Base(cur) + " is not a directory")
		case err != nil:
			return "", nil, errors.New("cannot be resolved: " + unwrapPathError(err).Error())
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if len(rest) > 0 && !st.IsDir() && !onlyDots(rest) {
				return "", nil, errors.New("cannot be resolved: " + c + " is not a directory")
			}
			cur, fi = next, st
			continue
		}
		if links++; links > maxLinks {
			return "", nil, errLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil, errors.New("cannot be resolved: " + unwrapPathError(err).Error())
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(splitPath(target), rest...)
		fi = nil
	}
	if fi == nil {
		// We ended on start or after a "..": describe where we are.
		if st, err := os.Lstat(cur); err == nil {
			fi = st
		}
	}
	return cur, fi, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator })
}

func containsDotDot(cs []string) bool {
	for _, c := range cs {
		if c == ".." {
			return true
		}
	}
	return false
}

func onlyDots(cs []string) bool {
	for _, c := range cs {
		if c != "." && c != "" {
			return false
		}
	}
	return true
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
