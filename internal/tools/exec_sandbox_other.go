//go:build !linux

package tools

import (
	"errors"
	"os/exec"
)

// Sandbox reports that commands are not confined on this system.
func Sandbox() SandboxInfo {
	return SandboxInfo{Summary: "off (Landlock and namespaces exist only on Linux): commands run with the server's rights"}
}

type sandboxRun struct{ cmd *exec.Cmd }

func (s *sandboxRun) cleanup() {}

func (s *sandboxRun) mountsFailedIn(exitCode int, output string) bool { return false }

func newSandboxRun(roots []string, workRoot, dir string, policy SandboxPolicy, opts ExecOptions, argv []string) (*sandboxRun, error) {
	return nil, errors.New("no sandbox on this system")
}
