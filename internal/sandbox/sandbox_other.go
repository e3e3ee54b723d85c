//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Probe reports that commands are not confined on this system.
func Probe() Info {
	return Info{Summary: "off (Landlock and namespaces exist only on Linux): commands run with the server's rights"}
}

// Run is never made here: Prepare fails.
type Run struct{ Cmd *exec.Cmd }

// Cleanup does nothing here.
func (s *Run) Cleanup() {}

// MountsFailed is always false here.
func (s *Run) MountsFailed(exitCode int, output string) bool { return false }

// Prepare fails: there is no sandbox on this system.
func Prepare(r Request) (*Run, error) {
	return nil, errors.New("no sandbox on this system")
}

// ForceSplitGrants does nothing here.
func ForceSplitGrants(on bool) {}

// Main returns at once: no process is ever started as the helper here.
func Main() {}
