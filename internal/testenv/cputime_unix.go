//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far. Benchmarks
// report it beside the wall clock: on a shared machine it is the steadier
// measure of their own cost.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
