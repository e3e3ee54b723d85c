package agent

import (
	"context"
	"sync"
	"time"
)

// A front end shows how long the model has been silent ("waiting for the
// model (40 s)"), so that a slow or wedged model is told apart from a
// run that works. Only the transport knows when a byte of the answer
// arrives, so the front end hands the run a ModelWait in its context and
// reads it as it likes; the model calls keep it up to date.

// ModelWait says, while a model call goes on, since when the model has
// sent nothing. The zero value is ready; it is safe for concurrent use.
type ModelWait struct {
	mu     sync.Mutex
	calls  int       // model calls going on
	silent time.Time // since when nothing arrived; meaningful while calls > 0
}

type modelWaitKey struct{}

// WithModelWait returns ctx carrying w: every model call made with it
// reports to w.
func WithModelWait(ctx context.Context, w *ModelWait) context.Context {
	return context.WithValue(ctx, modelWaitKey{}, w)
}

// modelWaitOf returns ctx's ModelWait, or nil.
func modelWaitOf(ctx context.Context) *ModelWait {
	w, _ := ctx.Value(modelWaitKey{}).(*ModelWait)
	return w
}

// Silence returns how long the model has sent nothing in the call going
// on (from the request, or from its last byte), and false when no model
// call goes on: the run is running tools, or is between turns.
func (w *ModelWait) Silence(now time.Time) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls == 0 {
		return 0, false
	}
	return now.Sub(w.silent), true
}

// begin marks a model call started: silent from now.
func (w *ModelWait) begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.calls == 0 {
		w.silent = time.Now()
	}
	w.calls++
	w.mu.Unlock()
}

// heard marks bytes of an answer arriving.
func (w *ModelWait) heard() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.silent = time.Now()
	w.mu.Unlock()
}

// end marks a model call ended.
func (w *ModelWait) end() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.calls--
	w.mu.Unlock()
}
