package session

import (
	"fmt"
	"os"
)

// openRegular opens a session file for reading: never through a
// symbolic link as its last component, and only a regular file (a FIFO
// would hang the read, a device never end it).
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); not reading it", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		f.Close()
		return nil, fmt.Errorf("%s changed while being opened; not reading it", path)
	}
	return f, nil
}
