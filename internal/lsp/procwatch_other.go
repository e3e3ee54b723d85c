//go:build !unix

package lsp

import "os"

// processAlive reports whether pid exists. On systems without signal 0,
// FindProcess is the best available test.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
