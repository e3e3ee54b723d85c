//go:build unix

package session

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// BenchmarkLoad200Turns measures what a reply after a restart pays before
// its first model request: loading a 200-turn run (each turn a request,
// two tool calls with 2 KB results, and an answer) from disk. Target:
// under 50 ms.
func BenchmarkLoad200Turns(b *testing.B) {
	root := b.TempDir()
	log := NewLog(root, Header{RunID: "rbench", Command: "ask", Title: "Agent: Ask", Started: time.Now()})
	output := strings.Repeat("1\tfunc Add(a, b int) int { return a + b } // \"quoted\" <tags>\n", 32) // ~2 KB
	var msgs []agent.Message
	for i := range 200 {
		msgs = append(msgs,
			agent.Message{Role: agent.RoleUser, Text: fmt.Sprintf("Turn %d: change the next function and explain why.", i)},
			agent.Message{Role: agent.RoleAssistant, Text: "Let me look.", ToolCalls: []agent.ToolCall{
				{ID: fmt.Sprintf("c%d_1", i), Name: "read_file", Args: json.RawMessage(`{"path":"calc.go"}`)},
				{ID: fmt.Sprintf("c%d_2", i), Name: "grep", Args: json.RawMessage(`{"pattern":"func Add"}`)},
			}},
			agent.Message{Role: agent.RoleUser, ToolResults: []agent.ToolResult{
				{CallID: fmt.Sprintf("c%d_1", i), Name: "read_file", Output: output},
				{CallID: fmt.Sprintf("c%d_2", i), Name: "grep", Output: output},
			}},
			agent.Message{Role: agent.RoleAssistant, Text: "Done: " + strings.Repeat("explanation ", 40)},
		)
		if err := log.AppendTurn(msgs, Turn{Input: "turn", Outcome: "done", Steps: 2, Ended: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(log.Path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	// The wall time per op includes waiting for a CPU on a busy machine;
	// cpu-ms/op is the process's own CPU time (GC included), which does not.
	cpu0 := testenv.CPUTime()
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(log.Path)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Messages) != 800 || s.Turns != 200 {
			b.Fatalf("loaded %d messages, %d turns", len(s.Messages), s.Turns)
		}
	}
	b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkSummary200Turns is the same file listed by catbuddy.listRuns,
// which skips the messages.
func BenchmarkSummary200Turns(b *testing.B) {
	root := b.TempDir()
	log := NewLog(root, Header{RunID: "rbench", Command: "ask", Started: time.Now()})
	output := strings.Repeat("x", 4096)
	var msgs []agent.Message
	for i := range 200 {
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, Text: fmt.Sprint(i)},
			agent.Message{Role: agent.RoleAssistant, Text: output})
		if err := log.AppendTurn(msgs, Turn{Outcome: "done", Ended: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if s, err := LoadSummary(log.Path); err != nil || s.Turns != 200 {
			b.Fatal(s.Turns, err)
		}
	}
}
