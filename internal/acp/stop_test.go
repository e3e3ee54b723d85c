package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// A model that declines ends the prompt with stopReason refusal, in
// both wire formats and however the provider says it; what it said is
// streamed, and the session takes the next prompt.
func TestRefusalStopReason(t *testing.T) {
	cases := []struct {
		name, provider string
		turn           agenttest.Turn
		text           string
	}{
		{"anthropic stop_reason refusal", "anthropic", agenttest.Turn{Text: "I can't help with that.", Stop: "refusal"}, "I can't help with that."},
		{"openai finish_reason content_filter", "openai", agenttest.Turn{Text: "Here is", Stop: "content_filter"}, "Here is"},
		{"openai message refusal", "openai", agenttest.Turn{Refusal: "I won't do that."}, "I won't do that."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{tc.turn, agenttest.TextTurn("Something else, then.")}})
			root := env(t, srv, tc.provider, nil)
			c := newTestClient(t)
			conn := connect(t, c, fullFS)
			id := newSession(t, conn, root)
			res, err := prompt(t, conn, id, "do the forbidden thing", "")
			if err != nil {
				t.Fatalf("session/prompt: %v", err)
			}
			if res.StopReason != sdk.StopReasonRefusal {
				t.Errorf("stopReason %q, want refusal", res.StopReason)
			}
			if got := c.text(); got != tc.text {
				t.Errorf("streamed %q, want %q", got, tc.text)
			}
			res, err = prompt(t, conn, id, "something else", "")
			if err != nil || res.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("the next prompt: %v %v", res.StopReason, err)
			}
			if !strings.Contains(c.text(), "Something else, then.") {
				t.Errorf("agent text %q lacks the second answer", c.text())
			}
		})
	}
}

// The step limit ends the prompt with max_turn_requests, after the
// model's summary.
func TestStepLimitStopReason(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("list_dir", map[string]any{})),
		agenttest.TextTurn("Summary: I listed the folder."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "a\n"})
	t.Setenv("CB_MAX_STEPS", "1")
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	res, err := prompt(t, conn, id, "look around forever", "")
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if res.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Errorf("stopReason %q, want max_turn_requests", res.StopReason)
	}
	if !strings.Contains(c.text(), "Summary: I listed the folder.") {
		t.Errorf("agent text %q lacks the summary", c.text())
	}
}
