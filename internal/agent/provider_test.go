package agent

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
)

func TestProviderFailures(t *testing.T) {
	cases := []struct {
		name       string
		streamOnly bool // the SDKs retry a whole answer cut before it started
		turns      []agenttest.Turn
		want       error  // nil: the run succeeds with answer "ok"
		requests   int    // model requests expected
		mention    string // in the error message
	}{
		{"401", false, []agenttest.Turn{{Status: 401}}, ErrAuth, 1, "Agent: Set API Key…"},
		{"403", false, []agenttest.Turn{{Status: 403}}, ErrAuth, 1, "HTTP 403"},
		{"429 then success", false, []agenttest.Turn{{Status: 429}, agenttest.TextTurn("ok")}, nil, 2, ""},
		{"500 after retries", false, []agenttest.Turn{{Status: 500}, {Status: 500}, {Status: 500}}, ErrServer, 3, "HTTP 500"},
		{"unknown model", false, []agenttest.Turn{{Status: 404, ErrorCode: "model_not_found", Error: "The model `test-model` does not exist"}}, ErrModelNotFound, 1, `"test-model"`},
		{"context overflow", false, []agenttest.Turn{{Status: 400, ErrorCode: "context_length_exceeded", Error: "prompt is too long: 250000 tokens > 200000 maximum"}}, ErrContextLength, 1, "context"},
		{"stream cut then success", false, []agenttest.Turn{{Text: "a b c d e f", Cut: true, After: 3}, agenttest.TextTurn("ok")}, nil, 2, ""},
		{"stream cut twice", true, []agenttest.Turn{{Text: "a b c d e f", Cut: true}, {Text: "a b c d e f", Cut: true}}, ErrBadResponse, 2, "bad response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				if tc.streamOnly && !m.stream {
					return
				}
				srv := agenttest.NewServer(t, agenttest.Script{Turns: tc.turns})
				out, err := (&Runner{Config: m.config(srv)}).Run(t.Context(), Task{Input: "x"}, nil)
				if got := len(srv.Requests()); got != tc.requests {
					t.Errorf("%d requests, want %d", got, tc.requests)
				}
				if tc.want == nil {
					if err != nil || out.Answer != "ok" {
						t.Fatalf("answer %q, err %v", out.Answer, err)
					}
					return
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("err %v, want %v", err, tc.want)
				}
				msg := err.Error()
				if strings.Contains(msg, "\n") || strings.Contains(msg, testKey) {
					t.Errorf("error is not one clean line: %q", msg)
				}
				if !strings.Contains(msg, m.provider) || !strings.Contains(msg, srv.URL()) {
					t.Errorf("error does not name the provider and endpoint: %q", msg)
				}
				found := false
				for _, alt := range strings.Split(tc.mention, "|") {
					found = found || strings.Contains(msg, alt)
				}
				if !found {
					t.Errorf("error %q does not mention %q", msg, tc.mention)
				}
			})
		})
	}
}

func TestUnreachableEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now
	for _, p := range []string{"openai", "anthropic"} {
		cfg := config.Config{Provider: p, Model: "m", BaseURL: url, APIKey: testKey, MaxRetries: -1}
		_, err := (&Runner{Config: cfg}).Run(t.Context(), Task{Input: "x"}, nil)
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("%s: err %v, want ErrUnreachable", p, err)
		}
		if msg := err.Error(); !strings.Contains(msg, url) || !strings.Contains(msg, "CB_BASE_URL") {
			t.Errorf("%s: %q should name the endpoint and how to change it", p, msg)
		}
	}
}

func TestRedactError(t *testing.T) {
	got := redactError("Incorrect API key provided: sk-abc*************wxyz. Also sk-real-key here.", "sk-real-key")
	if strings.Contains(got, "sk-abc") || strings.Contains(got, "sk-real-key") {
		t.Errorf("redactError left a key: %q", got)
	}
}

// TestOpenAICallsWithoutDistinctIndexes: some OpenAI-compatible servers
// (older Ollama) stream every call of a turn whole, all with index 0.
func TestOpenAICallsWithoutDistinctIndexes(t *testing.T) {
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	body := chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"echo","arguments":"{\"text\":\"1\"}"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"echo","arguments":"{\"text\":\"2\"}"}}]}`, "") +
		chunk(`{}`, "tool_calls") + "data: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	p, err := NewProvider(config.Config{Provider: "openai", Model: "m", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Complete(t.Context(), ModelRequest{Messages: []Message{{Role: RoleUser, Text: "x"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].ID != "a" || string(resp.ToolCalls[1].Args) != `{"text":"2"}` {
		t.Errorf("calls %+v", resp.ToolCalls)
	}
}
