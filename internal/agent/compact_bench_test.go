package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// BenchmarkCompactionDecision measures what the loop adds to every step
// to decide whether to compact: sizing the new messages of a long
// conversation (200 turns of 4 KB tool outputs, about 800 KB) and
// comparing the estimate with the window. Target: ≤ 1 ms per step.
func BenchmarkCompactionDecision(b *testing.B) {
	out := strings.Repeat("     1\tfunc main() { fmt.Println(\"hello\") }\n", 100) // ~4 KB
	req := ModelRequest{System: strings.Repeat("system prompt line\n", 200)}
	for i := range 10 {
		req.Tools = append(req.Tools, tools.Spec{Name: fmt.Sprint("tool", i), Description: strings.Repeat("d", 300), InputSchema: []byte(`{"type":"object"}`)})
	}
	turn := func(i int) []Message {
		id := fmt.Sprint("call_", i)
		return []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "read_file", Args: []byte(`{"path":"main.go"}`)}}},
			{Role: RoleUser, ToolResults: []ToolResult{{CallID: id, Name: "read_file", Output: out}}},
		}
	}
	req.Messages = []Message{{Role: RoleUser, Text: "task"}}
	for i := range 200 {
		req.Messages = append(req.Messages, turn(i)...)
	}
	bud := newBudget(1_000_000)
	bud.over(&req, compactAt) // the conversation so far was sized at earlier steps
	base := len(req.Messages)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req.Messages = append(req.Messages[:base], turn(i)...) // one new step
		bud.reset(base)                                        // …whose messages are sized anew
		if bud.over(&req, compactAt) {
			b.Fatal("over the window")
		}
	}
}
