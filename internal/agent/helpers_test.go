package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// testKey is the API key of every test: it must never appear in an
// error, a log line or a transcript.
const testKey = "sk-test-SECRET-0123456789abcdef"

// mode is one provider wire format, streaming or not.
type mode struct {
	provider string
	stream   bool
}

func (m mode) String() string {
	if m.stream {
		return m.provider + "/stream"
	}
	return m.provider + "/whole"
}

var modes = []mode{{"openai", true}, {"openai", false}, {"anthropic", true}, {"anthropic", false}}

// forModes runs f once per wire format and streaming mode.
func forModes(t *testing.T, f func(t *testing.T, m mode)) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) { f(t, m) })
	}
}

func (m mode) config(srv *agenttest.Server) config.Config {
	return config.Config{
		Provider: m.provider, Model: "test-model", BaseURL: srv.URL(), APIKey: testKey,
		MaxSteps: 10, DisableStreaming: !m.stream,
	}
}

// callID is the id the scripted server gives call i of turn n.
func (m mode) callID(turn, i int) string {
	if m.provider == "anthropic" {
		return fmt.Sprintf("toolu_%d_%d", turn, i)
	}
	return fmt.Sprintf("call_%d_%d", turn, i)
}

// testTools is a registry of small tools whose calls the tests observe.
type testTools struct {
	reg *tools.Registry

	mu    sync.Mutex
	order []string // tool calls in the order they ran

	failRuns   atomic.Int32
	arrived    int
	met        chan struct{}
	slowStart  chan struct{}
	slowCancel chan error
	ctxs       chan context.Context
}

func newTestTools(t *testing.T) *testTools {
	tt := &testTools{reg: tools.NewRegistry(), met: make(chan struct{}), slowStart: make(chan struct{}, 1), slowCancel: make(chan error, 1), ctxs: make(chan context.Context, 16)}
	type textIn struct {
		Text string `json:"text"`
	}
	must := func(tool tools.Tool) {
		if err := tt.reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	echo := tools.NewTool("echo", "Echo the text back.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.note("echo " + in.Text)
		return tools.Text("echo: " + in.Text), nil
	})
	echo.ReadOnly = true
	must(echo)
	must(tools.NewTool("write", "Pretend to write.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.note("write " + in.Text)
		return tools.Result{Output: "wrote " + in.Text, Edits: []tools.EditInfo{{Rel: in.Text, Added: 1, Removed: 1, Diff: "-a\n+b\n"}}}, nil
	}))
	must(tools.NewTool("fail", "Always fails.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.failRuns.Add(1)
		return tools.Result{}, fmt.Errorf("no such thing as %q", in.Text)
	}))
	// together reports whether another read-only call ran at the same
	// time: two of them in one turn meet only if they run concurrently.
	together := tools.NewTool("together", "Wait for a peer.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.mu.Lock()
		tt.arrived++
		if tt.arrived == 2 {
			close(tt.met)
		}
		tt.mu.Unlock()
		select {
		case <-tt.met:
			return tools.Text("met"), nil
		case <-time.After(time.Minute): // a failure deadline for a loaded machine, not a synchronisation
			return tools.Text("alone"), nil
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	})
	together.ReadOnly = true
	must(together)
	must(tools.NewTool("slow", "Block until cancelled.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.slowStart <- struct{}{}
		<-ctx.Done()
		tt.slowCancel <- ctx.Err()
		return tools.Result{}, ctx.Err()
	}))
	must(tools.NewTool("ctx", "Report the run's context.", func(ctx context.Context, in textIn) (tools.Result, error) {
		tt.ctxs <- ctx
		return tools.Text("ok"), nil
	}))
	return tt
}

func (tt *testTools) note(s string) {
	tt.mu.Lock()
	tt.order = append(tt.order, s)
	tt.mu.Unlock()
}

func (tt *testTools) ran() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]string(nil), tt.order...)
}

func args(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// events collects a run's events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) emit(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) kinds() []EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []EventKind
	for _, ev := range e.all {
		if ev.Kind == EventText && len(out) > 0 && out[len(out)-1] == EventText {
			continue // deltas: one entry per run of text
		}
		out = append(out, ev.Kind)
	}
	return out
}
