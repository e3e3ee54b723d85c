//go:build !unix

package snapshot

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// copyFile stamps the regular file name in d and copies its content
// within keep's budget; false if it is gone.
func copyFile(d *safefile.Dir, name string, keep *Budget) (fileStamp, []byte, copyState, bool) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fileStamp{}, nil, notCopied, false
		}
		st, ok := stampIn(d, name)
		return st, nil, unreadable, ok
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		st, ok := stampIn(d, name)
		return st, nil, unreadable, ok
	}
	st := stampOfInfo(fi)
	if !fi.Mode().IsRegular() {
		return st, nil, notRegular, true
	}
	if state := keep.reserve(fi.Size()); state != copied {
		return st, nil, state, true
	}
	if fi.Size() == 0 {
		return st, []byte{}, copied, true
	}
	buf := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, buf); err != nil {
		keep.release(fi.Size())
		return st, nil, changing, true
	}
	return st, buf, copied, true
}
