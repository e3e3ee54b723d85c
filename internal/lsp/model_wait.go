package lsp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
)

// While the model sends nothing, a run's progress says so and for how
// long: "waiting for the model (40 s)", updated every few seconds, so a
// slow or wedged model (which modelIdleTimeout ends after minutes) is
// told apart from a run that works. Both editors show the progress
// message; the server does the counting so that every client gets it.

// DefaultModelWaitReport is how often the waiting message is updated,
// and how long the model must have been silent before it shows: shorter
// than a typical first token, it would flash on every step.
const DefaultModelWaitReport = 5 * time.Second

// progressReporter is a run's progress messages: the reporter's own and
// the waiting message, in one order.
type progressReporter struct {
	p    *Progress
	wait agent.ModelWait

	mu      sync.Mutex
	last    string // the last message other than the waiting one
	waiting bool   // the waiting message is the one shown
}

// report shows msg as the run's progress message.
func (pr *progressReporter) report(ctx context.Context, msg string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.last, pr.waiting = msg, false
	pr.p.Report(ctx, msg, -1)
}

// watch shows the waiting message once the model has been silent for
// every, and updates it every interval, until ctx ends or stop is
// called. While the model streams, or while tools run, it sends
// nothing; when the model speaks again after a wait, the message before
// the wait comes back.
func (pr *progressReporter) watch(ctx context.Context, every time.Duration) (stop func()) {
	if pr.p.Token() == "" {
		return func() {} // the client shows no progress
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Checked five times per interval: the first message comes soon
		// after the model has been silent for the interval, and the one
		// before it soon after the model speaks again.
		tick := time.NewTicker(every / 5)
		defer tick.Stop()
		var shown time.Time // when the waiting message was last updated
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			now := time.Now()
			d, silent := pr.wait.Silence(now)
			pr.mu.Lock()
			switch {
			case silent && d >= every:
				if !pr.waiting || now.Sub(shown) >= every {
					pr.waiting, shown = true, now
					pr.p.Report(ctx, fmt.Sprintf("waiting for the model (%d s)", int(d/time.Second)), -1)
				}
			case pr.waiting:
				pr.waiting = false
				pr.p.Report(ctx, pr.last, -1)
			}
			pr.mu.Unlock()
		}
	}()
	// Waiting for the goroutine means no waiting message can follow the
	// progress's end.
	return func() {
		cancel()
		<-done
	}
}
