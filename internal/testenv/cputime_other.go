//go:build !unix

package testenv

import "time"

// CPUTime is 0 where the process's CPU time is not measured.
func CPUTime() time.Duration { return 0 }
