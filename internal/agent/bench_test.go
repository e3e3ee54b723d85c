package agent

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// benchServer answers every request but the last of a run with one
// trivial tool call, so the loop's whole cost per turn is measured:
// request building, HTTP on loopback, SSE decoding, argument
// reassembly, Registry.Execute, events and transcript. The scripted
// model itself answers at once.
func benchServer(b *testing.B, turnsPerRun int) *agenttest.Server {
	srv := agenttest.NewServer(b, agenttest.Script{})
	srv.DiscardRequests = true
	srv.Next = func(n int, req agenttest.Request) agenttest.Turn {
		if (n+1)%turnsPerRun == 0 {
			return agenttest.TextTurn("done")
		}
		return agenttest.Turn{
			Text:      "Looking at the next file.",
			ToolCalls: []agenttest.ToolCall{agenttest.Call("echo", map[string]string{"text": fmt.Sprintf("file%d.go", n)})},
		}
	}
	return srv
}

func benchRegistry(b *testing.B) *tools.Registry {
	reg := tools.NewRegistry()
	type in struct {
		Text string `json:"text"`
	}
	echo := tools.NewTool("echo", "Echo.", func(ctx context.Context, in in) (tools.Result, error) {
		return tools.Text("contents of " + in.Text), nil
	})
	echo.ReadOnly = true
	if err := reg.Register(echo); err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkTurnOverhead reports the median time of one tool-calling
// turn (target: ≤ 2 ms on loopback), per provider and streaming mode.
func BenchmarkTurnOverhead(b *testing.B) {
	const turns = 10
	for _, m := range modes {
		b.Run(m.String(), func(b *testing.B) {
			srv := benchServer(b, turns)
			cfg := m.config(srv)
			cfg.MaxSteps = turns + 1
			r := &Runner{Registry: benchRegistry(b), Config: cfg}
			var perTurn []time.Duration
			b.ResetTimer()
			for b.Loop() {
				last := time.Now()
				_, err := r.Run(b.Context(), Task{Input: "go"}, func(ev Event) {
					if ev.Kind == EventStep && ev.Step > 1 {
						now := time.Now()
						perTurn = append(perTurn, now.Sub(last))
						last = now
					}
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(perTurn)
			if len(perTurn) > 0 {
				b.ReportMetric(float64(perTurn[len(perTurn)/2].Microseconds())/1000, "median-ms/turn")
			}
		})
	}
}

// BenchmarkMemory100Turns runs 100 tool-calling turns and reports the
// live heap's growth per turn between turn 10 and turn 100, next to the
// size of the events per turn (what a transcript is rendered from). The
// conversation (which the model must be sent again each turn) grows by
// about as much; flat memory means the heap grows by about that, and
// nothing else.
func BenchmarkMemory100Turns(b *testing.B) {
	const turns = 101
	srv := benchServer(b, turns)
	cfg := modes[0].config(srv)
	cfg.MaxSteps = turns + 1
	r := &Runner{Registry: benchRegistry(b), Config: cfg}
	var heap10, heap100 uint64
	heapAt := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var evBytes int
	for b.Loop() {
		evBytes = 0
		_, err := r.Run(b.Context(), Task{Input: "go"}, func(ev Event) {
			evBytes += len(ev.Text) + len(ev.Args) + len(ev.Output)
			switch {
			case ev.Kind == EventStep && ev.Step == 10:
				heap10 = heapAt()
			case ev.Kind == EventStep && ev.Step == 100:
				heap100 = heapAt()
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(int64(heap100)-int64(heap10))/90/1024, "heap-KB/turn")
	b.ReportMetric(float64(evBytes)/float64(turns)/1024, "events-KB/turn")
}
