//go:build unix && !linux

package safefile

import "errors"

var errNoOpenat2 = errors.New("openat2 is not available")

// openat2Beneath is Linux only; elsewhere openatEach does the walk.
func openat2Beneath(int, string, int, uint32) (int, error) { return -1, errNoOpenat2 }
