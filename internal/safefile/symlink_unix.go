//go:build unix

package safefile

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// SymlinkBeneath makes rel below root a symlink to target, replacing
// what is there atomically (a temporary link renamed over it), creating
// missing directories and following no symlink on the way. The target
// is never looked at.
func SymlinkBeneath(root, rel, target string) error {
	d, base, err := openParentAll(root, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	tmp := tempName(base)
	if err := unix.Symlinkat(target, d.Fd(), tmp); err != nil {
		return &fs.PathError{Op: "symlink", Path: rel, Err: err}
	}
	if err := d.Rename(tmp, base); err != nil {
		_ = d.Remove(tmp)
		return err
	}
	return nil
}
