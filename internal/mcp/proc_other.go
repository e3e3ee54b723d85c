//go:build !unix

package mcp

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(pid int) {}
