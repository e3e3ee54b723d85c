package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// TestHugeResultKeepsWhatFits: a 173 KB result for a model the table
// does not know (32k tokens assumed) reaches the model as much of its
// start as the window holds, with a note giving its size and how to
// read it in parts, never as a few hundred bytes.
func TestHugeResultKeepsWhatFits(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		big := fileOf("big", 173<<10)
		tt := newTestTools(t)
		if err := tt.reg.Register(tools.NewTool("read_file", "Read a file.", func(ctx context.Context, in struct {
			Path string `json:"path"`
		}) (tools.Result, error) {
			return tools.Text(big), nil
		})); err != nil {
			t.Fatal(err)
		}
		srv := agenttest.NewServer(t, agenttest.Script{ContextWindow: defaultContextWindow, Turns: []agenttest.Turn{
			agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "big.txt"})),
			{Text: "done"},
		}})
		r := &Runner{Registry: tt.reg, Config: m.config(srv)}
		out, err := r.Run(t.Context(), Task{Input: "read big.txt"}, nil)
		if err != nil || out.Answer != "done" {
			t.Fatalf("Run = %q, %v", out.Answer, err)
		}
		reqs := srv.Requests()
		got := reqs[len(reqs)-1].ToolResults()
		if len(got) != 1 {
			t.Fatalf("last request has %d tool results", len(got))
		}
		res := got[0].Content
		if len(res) < 40<<10 {
			t.Errorf("the model got %d bytes of a 173 KB result; the window holds far more", len(res))
		}
		for _, want := range []string{"this result is 177", "bytes (about", "read_file with offset and limit", "only its first"} {
			if !strings.Contains(res, want) {
				t.Errorf("result lacks %q; its end:\n%s", want, res[max(0, len(res)-400):])
			}
		}
		if !strings.HasPrefix(res, "big line 1: ") {
			t.Errorf("the result does not keep its start: %.80q", res)
		}
	})
}
