package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Writing a layer from outside, as a command over it would: the caller
// places there the run's own pending edits and the editor's unsaved
// buffers before a command runs, so the command sees them. Call these
// only while no command runs over the layer (overlayfs does not expect
// its upper directory to change under a mount). They keep the folder's
// directory modes, so the merged view shows nothing but the change.

// WriteFile makes the merged view hold data at rel (relative to the
// folder, slash- or OS-separated). perm 0 keeps the folder's file mode,
// or 0644 for a new file. It replaces the file atomically.
func (l OverlayLayer) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	rel, err := layerRel(rel)
	if err != nil {
		return err
	}
	if err := l.parents(rel); err != nil {
		return err
	}
	dst := filepath.Join(l.Upper, rel)
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory in the layer", rel)
	}
	if perm == 0 {
		perm = 0o644
		if fi, err := os.Lstat(filepath.Join(l.Lower, rel)); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".cb-ls-write-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst) // over a whiteout too
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s into the layer: %v", rel, err)
	}
	return nil
}

// Delete makes rel absent from the merged view: a whiteout where the
// folder has it, else just the removal of what the layer made there.
func (l OverlayLayer) Delete(rel string) error {
	rel, err := layerRel(rel)
	if err != nil {
		return err
	}
	dst := filepath.Join(l.Upper, rel)
	if err := removeTree(dst); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(l.Lower, rel)); err != nil {
		return nil
	}
	if err := l.parents(rel); err != nil {
		return err
	}
	// A whiteout needs no privilege since Linux 5.8.
	if err := unix.Mknod(dst, unix.S_IFCHR, 0); err != nil {
		return fmt.Errorf("mark %s deleted in the layer: %v", rel, err)
	}
	return nil
}

// Revert drops what the layer holds at rel (beneath it, for a
// directory): the folder's entry shows again, unless a directory above
// rel is deleted or opaque in the layer.
func (l OverlayLayer) Revert(rel string) error {
	rel, err := layerRel(rel)
	if err != nil {
		return err
	}
	err = removeTree(filepath.Join(l.Upper, rel))
	if errors.Is(err, unix.ENAMETOOLONG) {
		// A path longer than PATH_MAX (a command nested directories
		// that deep) is removed component by component, from the upper
		// directory's descriptor.
		r, oerr := os.OpenRoot(l.Upper)
		if oerr != nil {
			return oerr
		}
		defer r.Close()
		err = r.RemoveAll(rel)
	}
	return err
}

// Remove deletes the layer's upper and work directories: the run's
// change set is gone.
func (l OverlayLayer) Remove() error {
	return errors.Join(removeTree(l.Upper), removeTree(l.Work))
}

// layerRel checks that rel names a path inside the layer.
func layerRel(rel string) (string, error) {
	rel = filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(rel) || rel == "." {
		return "", fmt.Errorf("%q is not a path inside the layer", rel)
	}
	return rel, nil
}

// parents makes the directories above rel in the upper directory, with
// the folder's modes. One the layer deleted is made again, opaque, so
// that nothing of the folder's old directory shows in it.
func (l OverlayLayer) parents(rel string) error {
	if err := os.MkdirAll(l.Upper, 0o700); err != nil {
		return err
	}
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	if parts[0] == "." {
		return nil
	}
	d := ""
	for _, part := range parts {
		d = filepath.Join(d, part)
		up := filepath.Join(l.Upper, d)
		fi, err := os.Lstat(up)
		if err == nil && fi.IsDir() {
			continue
		}
		whiteout := err == nil && isWhiteout(fi)
		if err == nil && !whiteout {
			return fmt.Errorf("%s is not a directory in the layer", d)
		}
		perm := fs.FileMode(0o755)
		lfi, lerr := os.Lstat(filepath.Join(l.Lower, d))
		switch {
		case lerr == nil && lfi.IsDir():
			perm = lfi.Mode().Perm()
		case lerr == nil && !whiteout:
			return fmt.Errorf("%s is not a directory in the folder", d)
		}
		if whiteout {
			if err := os.Remove(up); err != nil {
				return err
			}
		}
		if err := os.Mkdir(up, perm); err != nil {
			return err
		}
		if err := os.Chmod(up, perm); err != nil { // past the umask
			return err
		}
		if whiteout && lerr == nil && lfi.IsDir() {
			if err := unix.Lsetxattr(up, opaqueXattr, []byte("y"), 0); err != nil {
				return fmt.Errorf("make %s opaque in the layer: %v", d, err)
			}
		}
	}
	return nil
}
