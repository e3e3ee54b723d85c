//go:build !unix

package safefile

import "os"

// openRegularOnly opens the entry name of d for reading if it is a
// regular file.
func (d *Dir) openRegularOnly(name, rel string) (*os.File, error) {
	f, _, err := d.OpenRegular(name, rel)
	return f, err
}

// openLooked is openRegularOnly here: name was just looked at (fi).
func (d *Dir) openLooked(name, rel string, _ os.FileInfo) (*os.File, error) {
	return d.openRegularOnly(name, rel)
}
