//go:build unix

package snapshot

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine it
// is a steadier measure of a benchmark's own cost than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
