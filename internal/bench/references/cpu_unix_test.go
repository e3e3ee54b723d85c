//go:build unix

package references

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process (cb-ls's server, the fake
// editor and the gopls client, not gopls) has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
