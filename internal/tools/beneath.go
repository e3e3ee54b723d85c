package tools

import (
	"errors"
	"io/fs"
)

// The PathGuard checks a path's real form, but the disk can change
// between that check and the open: a directory swapped for a symlink to
// .catbuddy/ (inside the root, so os.Root lets it through) would lead a
// read, a write or a walk into cb-ls's own state. The file tools
// therefore open what the guard admitted component by component, from
// the boundary root, refusing every symlink on the way (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel has it, openat
// with O_NOFOLLOW otherwise), and then work through the descriptor of
// the directory they opened: what is read, written, renamed or listed is
// the object that was checked, whatever the path names a moment later.
// guard.Path.Rel has every symlink resolved already, so a symlink met
// here means the tree changed under the tool.

// ErrPathChanged is returned when a symlink appeared on an admitted path
// between the guard's check and the open.
var ErrPathChanged = errors.New("changed while it was being opened (a symbolic link appeared on the way); try again")

// readDir lists d, sorted by name.
func (d *dirFD) readDir() ([]fs.DirEntry, error) {
	f, err := d.openSelf()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil && len(ents) == 0 {
		return nil, err
	}
	sortEntries(ents)
	return ents, nil
}
