package agent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// idleMode is a server playing turns and a runner for it in m, with an
// idle limit of one second.
func idleMode(t *testing.T, m mode, turns ...agenttest.Turn) (*agenttest.Server, *Runner) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: turns})
	cfg := m.config(srv)
	cfg.ModelIdleTimeout = 1
	return srv, &Runner{Config: cfg}
}

// A server that accepts the request and then sends nothing, before its
// answer or in the middle of it, ends the step after the idle limit with
// an error naming the endpoint. The SDKs' retries (two by default) do
// not repeat the wait, and the conversation can be continued.
func TestStalledModelEndsTheStep(t *testing.T) {
	cases := []struct {
		name       string
		streamOnly bool
		stall      agenttest.Turn
	}{
		{"nothing at all", false, agenttest.Turn{Stall: true}},
		{"mid-answer", true, agenttest.Turn{Text: "one two three four five six", Hang: true, After: 3}},
	}
	for _, tc := range cases {
		for _, m := range modes {
			if tc.streamOnly && !m.stream {
				continue
			}
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				t.Parallel()
				srv, r := idleMode(t, m, tc.stall, agenttest.TextTurn("ok"))
				start := time.Now()
				out, err := r.Run(t.Context(), Task{Input: "x"}, nil)
				took := time.Since(start)
				if !errors.Is(err, ErrStalled) {
					t.Fatalf("err %v, want ErrStalled", err)
				}
				var pe *ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("err %T is not a *ProviderError", err)
				}
				msg := err.Error()
				if want := "the model at " + srv.URL() + " sent nothing for 1 s"; !strings.Contains(msg, want) || !strings.Contains(msg, "modelIdleTimeout") {
					t.Errorf("error %q does not say %q and how to wait longer", msg, want)
				}
				if strings.Contains(msg, "\n") || strings.Contains(msg, testKey) {
					t.Errorf("error is not one clean line: %q", msg)
				}
				// The step waited out the limit once: a retry would be a
				// second request (counted below), so no upper bound on the
				// time is needed, and a loaded machine cannot break one.
				if took < time.Second {
					t.Errorf("the stalled step ended after %v, before the 1 s limit", took)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests: a stall must not be retried", n)
				}
				if len(out.Messages) == 0 {
					t.Fatalf("the stalled run kept no conversation to continue")
				}
				again, err := r.Reply(t.Context(), "", out.Messages, "go on", nil)
				if err != nil || again.Answer != "ok" {
					t.Fatalf("continuing after the stall: answer %q, err %v", again.Answer, err)
				}
			})
		}
	}
}

// A model that is slow but steady, a few bytes every quarter second for
// longer than the limit, is not cut. The limit is twelve pauses long, so
// a loaded machine that stretches one pause does not cut the answer.
func TestSlowSteadyModelIsNotCut(t *testing.T) {
	const limit = 3 * time.Second
	text := strings.TrimSpace(strings.Repeat("slow but steady ", 6)) // 18 stream events
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			srv, r := idleMode(t, m, agenttest.Turn{Text: text, IntervalMS: 250, Pieces: 18})
			r.Config.ModelIdleTimeout = int(limit / time.Second)
			start := time.Now()
			out, err := r.Run(t.Context(), Task{Input: "x"}, nil)
			took := time.Since(start)
			if err != nil || out.Answer != text {
				t.Fatalf("answer %q, err %v; want %q", out.Answer, err, text)
			}
			// The answer must have outlasted the limit for the case to
			// mean anything: at least seventeen pauses of 250 ms.
			if took < limit {
				t.Errorf("the answer took %v: not longer than the %v limit", took, limit)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}
