//go:build !linux

package tools

import (
	"errors"
	"syscall"
)

// SandboxStatus reports that exec is not confined on this system.
func SandboxStatus() (active bool, desc string) {
	return false, "not available: Landlock exists only on Linux"
}

func planSandbox(roots []string, workRoot string, extraRW []string) []sandboxRule { return nil }

func defaultWritableCaches() []string { return nil }

func sandboxCommand(spec sandboxSpec) (path, envEntry string, err error) {
	return "", "", errors.New("no sandbox on this system")
}

func prepareSandbox(roots []string, workRoot string, extraRW, argv []string) (sandboxSpec, *syscall.SysProcAttr) {
	return sandboxSpec{Argv: argv}, &syscall.SysProcAttr{Setpgid: true}
}
