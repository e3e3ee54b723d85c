package agent

import (
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// A ModelWait in the run's context counts the silence of the model call
// going on: from the request while nothing arrives, from the last byte
// once the answer streams, and not at all once the call is over.
func TestModelWaitFollowsTheCall(t *testing.T) {
	for _, m := range modes {
		t.Run("stall/"+m.String(), func(t *testing.T) {
			t.Parallel()
			srv, r := idleMode(t, m, agenttest.Turn{Stall: true})
			var w ModelWait
			if _, ok := w.Silence(time.Now()); ok {
				t.Fatal("a ModelWait before any call says a call goes on")
			}
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := r.Run(WithModelWait(t.Context(), &w), Task{Input: "x"}, nil)
				done <- err
			}()
			if _, err := srv.WaitRequests(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			d, ok := w.Silence(time.Now())
			if !ok || d < 0 || d > time.Since(start) {
				t.Errorf("during the stall Silence = %v, %v; want a call going on, silent since its request", d, ok)
			}
			if err := <-done; err == nil {
				t.Fatal("the stalled run succeeded")
			}
			if d, ok := w.Silence(time.Now()); ok {
				t.Errorf("after the call Silence = %v, true; want no call going on", d)
			}
		})
		if !m.stream {
			continue
		}
		t.Run("streaming/"+m.String(), func(t *testing.T) {
			t.Parallel()
			// The first byte comes delay after the request, then the
			// answer hangs: once text arrived, the silence counts from
			// it, so it is shorter than the time since the request by
			// at least delay.
			const delay = 300 * time.Millisecond
			_, r := idleMode(t, m, agenttest.Turn{Text: "one two three four five six seven eight", Hang: true, After: 4, DelayMS: int(delay / time.Millisecond)})
			var w ModelWait
			var once sync.Once
			var silence, sinceStart time.Duration
			var going bool
			start := time.Now()
			r.Run(WithModelWait(t.Context(), &w), Task{Input: "x"}, func(ev Event) {
				if ev.Kind == EventText {
					once.Do(func() {
						now := time.Now()
						silence, going = w.Silence(now)
						sinceStart = now.Sub(start)
					})
				}
			})
			if !going {
				t.Fatal("while the answer streamed Silence said no call goes on")
			}
			if silence > sinceStart-delay {
				t.Errorf("silence %v after text arrived %v into the run: not counted from the last byte (the first came after %v)", silence, sinceStart, delay)
			}
			if _, ok := w.Silence(time.Now()); ok {
				t.Error("after the call Silence says a call goes on")
			}
		})
	}
}
