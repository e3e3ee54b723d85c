package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// refusalTurns are the ways each wire format says the model declined.
func refusalTurns(provider string) map[string]agenttest.Turn {
	if provider == "anthropic" {
		return map[string]agenttest.Turn{
			"stop_reason refusal": {Text: "I can't help with", Stop: "refusal"},
		}
	}
	return map[string]agenttest.Turn{
		"finish_reason content_filter": {Text: "Here is how to", Stop: "content_filter"},
		"message refusal":              {Refusal: "I can't help with that."},
	}
}

// A refusal ends the run with ErrRefused: the model's text is the
// answer, a tool it called in the same turn does not run, and the
// conversation can be replied to.
func TestRefusalEndsTheRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		for name, turn := range refusalTurns(m.provider) {
			t.Run(name, func(t *testing.T) {
				tt := newTestTools(t)
				turn.ToolCalls = []agenttest.ToolCall{agenttest.Call("echo", map[string]string{"text": "never"})}
				srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{turn, agenttest.TextTurn("Sure, something else.")}})
				r := &Runner{Registry: tt.reg, Config: m.config(srv)}
				var streamed strings.Builder
				out, err := r.Run(t.Context(), Task{Input: "x"}, func(ev Event) {
					if ev.Kind == EventText {
						streamed.WriteString(ev.Text)
					}
				})
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("err %v, want ErrRefused", err)
				}
				want := turn.Text + turn.Refusal
				if out.Answer != want || streamed.String() != want {
					t.Errorf("answer %q, streamed %q, want %q", out.Answer, streamed.String(), want)
				}
				if ran := tt.ran(); len(ran) != 0 {
					t.Errorf("tools ran after the refusal: %v", ran)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d model requests, want 1", n)
				}
				last := out.Messages[len(out.Messages)-1]
				if last.Role != RoleAssistant || len(last.ToolCalls) != 0 || last.Text != want {
					t.Errorf("the conversation ends with %+v, want the refusal's text alone", last)
				}
				if _, err := r.Reply(t.Context(), "", out.Messages, "then something else", nil); err != nil {
					t.Errorf("reply after the refusal: %v", err)
				}
			})
		}
	})
}
