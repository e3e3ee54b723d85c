package testenv

import (
	"fmt"
	"os"
)

// PrivateState gives the test binary a state directory of its own
// (XDG_STATE_HOME in a fresh temporary directory), so that the change
// sets, sessions and trust decisions its tests keep never reach the
// user's, nor another test binary's. Call it from TestMain, after
// sandbox.Main; the returned function removes the directory.
func PrivateState() (cleanup func()) {
	dir, err := os.MkdirTemp("", "cb-ls-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv: a private state directory:", err)
		os.Exit(2)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	return func() { os.RemoveAll(dir) }
}
