package safefile

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// MapThreshold is the size from which ReadMapped maps a file rather than
// copying it: below it, a read costs less than setting up and tearing
// down a mapping.
const MapThreshold = 256 << 10

// ErrFault is what CatchFault returns when the memory read faulted: a
// mapped file was truncated while it was being read.
var ErrFault = errors.New("changed while it was being read (the file was truncated)")

// CatchFault runs fn, which reads content that ReadMapped mapped, and
// turns a memory fault in it into ErrFault instead of a crash: a file
// truncated underneath raises SIGBUS on the pages past its new end,
// which debug.SetPanicOnFault turns into a panic of this goroutine,
// recovered here. Any other panic goes on.
func CatchFault(fn func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			if f, ok := p.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%w (fault at %#x)", ErrFault, f.Addr())
				return
			}
			panic(p)
		}
	}()
	fn()
	return nil
}
