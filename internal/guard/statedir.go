package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// OpenStateDir opens <root>/.catbuddy/<sub…> for cb-ls's own writes
// (transcripts, sessions), creating what is missing with mode 0700, and
// follows no symlink on the way: a model-made ".catbuddy" link to some
// other place must not make the server write there. Each component is
// checked with Lstat, opened, and the opened directory compared with the
// one checked (os.SameFile), so a swap between the check and the open is
// refused too. Inside the returned os.Root nothing can lead out of it.
func OpenStateDir(root string, sub ...string) (*os.Root, error) {
	cur, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	where := root
	for _, name := range append([]string{StateDir}, sub...) {
		where += string(os.PathSeparator) + name
		next, err := openOwnDir(cur, name, where)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// ErrStateDirLink is returned when a component of the state directory
// is not a real directory.
var ErrStateDirLink = errors.New("is a symbolic link or not a directory; cb-ls does not write its state through it")

func openOwnDir(parent *os.Root, name, where string) (*os.Root, error) {
	fi, err := parent.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := parent.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = parent.Lstat(name)
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s %w", where, ErrStateDirLink)
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	st, err := r.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		r.Close()
		return nil, fmt.Errorf("%s %w (it changed while being opened)", where, ErrStateDirLink)
	}
	return r, nil
}
