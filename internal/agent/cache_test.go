package agent

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// cacheControl returns the cache_control type of a JSON object ("" if none).
func cacheControl(v any) string {
	m, _ := v.(map[string]any)
	cc, _ := m["cache_control"].(map[string]any)
	s, _ := cc["type"].(string)
	return s
}

func lastOf(v any) any {
	l, _ := v.([]any)
	if len(l) == 0 {
		return nil
	}
	return l[len(l)-1]
}

func TestAnthropicRequestsCarryCacheBreakpoints(t *testing.T) {
	for _, m := range modes[2:] {
		t.Run(m.String(), func(t *testing.T) {
			tt := newTestTools(t)
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(agenttest.Call("echo", map[string]string{"text": "a"})),
				agenttest.TextTurn("done"),
			}})
			r := &Runner{Registry: tt.reg, Config: m.config(srv)}
			if _, err := r.Run(t.Context(), Task{Input: "x"}, nil); err != nil {
				t.Fatal(err)
			}
			for i, req := range srv.Requests() {
				tools, _ := req.Body["tools"].([]any)
				for k, tool := range tools {
					if got, want := cacheControl(tool), map[bool]string{true: "ephemeral"}[k == len(tools)-1]; got != want {
						t.Errorf("request %d, tool %d: cache_control %q, want %q", i, k, got, want)
					}
				}
				if got := cacheControl(lastOf(req.Body["system"])); got != "ephemeral" {
					t.Errorf("request %d: system prompt without cache_control", i)
				}
				msgs, _ := req.Body["messages"].([]any)
				for k, msg := range msgs {
					mm, _ := msg.(map[string]any)
					want := map[bool]string{true: "ephemeral"}[k == len(msgs)-1]
					if got := cacheControl(lastOf(mm["content"])); got != want {
						t.Errorf("request %d, message %d: last block's cache_control %q, want %q", i, k, got, want)
					}
				}
			}
		})
	}
}

func TestCachedTokensAreReported(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		tt := newTestTools(t)
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			{ToolCalls: []agenttest.ToolCall{agenttest.Call("echo", map[string]string{"text": "a"})}, InputTokens: 3000, OutputTokens: 10},
			{Text: "done", InputTokens: 3100, OutputTokens: 5, CachedTokens: 2900},
		}})
		var ev events
		r := &Runner{Registry: tt.reg, Config: m.config(srv)}
		out, err := r.Run(t.Context(), Task{Input: "x"}, ev.emit)
		if err != nil {
			t.Fatal(err)
		}
		var usages []Usage
		for _, e := range ev.all {
			if e.Kind == EventUsage {
				usages = append(usages, *e.Usage)
			}
		}
		want := []Usage{{InputTokens: 3000, OutputTokens: 10}, {InputTokens: 3100, OutputTokens: 5, CachedInputTokens: 2900}}
		if len(usages) != 2 || usages[0] != want[0] || usages[1] != want[1] {
			t.Errorf("usage events %+v, want %+v", usages, want)
		}
		if total := (Usage{InputTokens: 6100, OutputTokens: 15, CachedInputTokens: 2900}); out.Usage != total {
			t.Errorf("outcome usage %+v, want %+v", out.Usage, total)
		}
		if got := out.Usage.String(); got != "6100 input (2900 cached), 15 output tokens" {
			t.Errorf("usage reads %q, want the cached tokens named", got)
		}
	})
}

// TestOpenAIPrefixIsByteStable checks what OpenAI's automatic prompt
// caching needs: each request starts with the previous one's messages,
// byte for byte.
func TestOpenAIPrefixIsByteStable(t *testing.T) {
	for _, m := range modes[:2] {
		t.Run(m.String(), func(t *testing.T) {
			tt := newTestTools(t)
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(agenttest.Call("echo", map[string]string{"text": "a \"quoted\"\n"}), agenttest.Call("write", map[string]string{"text": "f.go"})),
				agenttest.CallTurn(agenttest.Call("echo", map[string]string{"text": "b"})),
				agenttest.TextTurn("done"),
			}})
			r := &Runner{Registry: tt.reg, Config: m.config(srv)}
			if _, err := r.Run(t.Context(), Task{Input: "x"}, nil); err != nil {
				t.Fatal(err)
			}
			var prev []json.RawMessage
			var prevTools json.RawMessage
			for i, req := range srv.Requests() {
				var body struct {
					Messages []json.RawMessage `json:"messages"`
					Tools    json.RawMessage   `json:"tools"`
				}
				if err := json.Unmarshal(req.Raw, &body); err != nil {
					t.Fatal(err)
				}
				if i > 0 && !bytes.Equal(body.Tools, prevTools) {
					t.Errorf("request %d: the tools changed", i)
				}
				for k := range prev {
					if k >= len(body.Messages) || !bytes.Equal(prev[k], body.Messages[k]) {
						t.Fatalf("request %d: message %d differs from the previous request's:\n%s\n%s", i, k, prev[k], body.Messages[k])
					}
				}
				prev, prevTools = body.Messages, body.Tools
			}
		})
	}
}
