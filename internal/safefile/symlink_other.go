//go:build !unix

package safefile

import "errors"

// SymlinkBeneath is not offered where there is no symlinkat.
func SymlinkBeneath(root, rel, target string) error {
	return errors.New("making a symbolic link is not supported on this system")
}
