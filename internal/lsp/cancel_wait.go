package lsp

import (
	"context"
	"time"
)

// cancelWait bounds how long catbuddy.cancel waits for the cancelled
// runs to end. A run ends within milliseconds of its cancellation (every
// wait in it follows its context), so this only matters when something
// is stuck; the answer then comes anyway.
const cancelWait = 2 * time.Second

// awaitEnds waits until every turn whose done channel is in ends has
// finished (its end runEvent and window/showMessage are sent before done
// closes), at most cancelWait.
//
// The order matters to clients that read one reply at a time: Emacs
// 28's jsonrpc leaves its process filter when the reply to the request
// it waits for arrives, and whatever came in the same read after it
// stays unread until the server writes again. Answering after the end
// events puts them before the reply, so the user sees the outcome.
func (rs *runs) awaitEnds(ctx context.Context, ends []<-chan struct{}) {
	if len(ends) == 0 {
		return
	}
	timer := time.NewTimer(cancelWait)
	defer timer.Stop()
	for _, done := range ends {
		select {
		case <-done:
		case <-timer.C:
			rs.s.log.Warn("catbuddy.cancel: a cancelled run has not ended; answering anyway", "waited", cancelWait)
			return
		case <-ctx.Done():
			return
		}
	}
}
