package agenttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func post(t *testing.T, ctx context.Context, url, body string, header map[string]string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

// sse reads a whole event stream into (event name, data) pairs.
func sse(t *testing.T, r io.Reader) [][2]string {
	t.Helper()
	var out [][2]string
	var name string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out = append(out, [2]string{name, strings.TrimPrefix(line, "data: ")})
			name = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return out
}

var editCall = Call("edit_file", map[string]any{"path": "calc.go", "old_string": "a - b", "new_string": "a + b // é"})

func TestOpenAINonStreaming(t *testing.T) {
	s := NewServer(t, Script{Turns: []Turn{{Text: "looking", ToolCalls: []ToolCall{editCall, {Name: "read_file", RawArgs: `{"path":`}}}}})
	resp, err := post(t, t.Context(), s.URL()+"/chat/completions",
		`{"model":"m1","messages":[{"role":"system","content":"sys"},{"role":"user","content":"fix it"}],"tools":[{"type":"function","function":{"name":"read_file","parameters":{}}}]}`,
		map[string]string{"Authorization": "Bearer sk-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens int64 `json:"prompt_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	c := got.Choices[0]
	if c.Message.Content != "looking" || c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 2 {
		t.Fatalf("unexpected answer: %+v", got)
	}
	if tc := c.Message.ToolCalls[0]; tc.ID != "call_0_0" || tc.Function.Name != "edit_file" || tc.Function.Arguments != string(editCall.Args) {
		t.Errorf("call 0 = %+v", tc)
	}
	if tc := c.Message.ToolCalls[1]; tc.Function.Arguments != `{"path":` {
		t.Errorf("raw args not verbatim: %q", tc.Function.Arguments)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model() != "m1" || r.System() != "sys" || r.LastUserText() != "fix it" || r.APIKey() != "sk-1" || r.Stream() {
		t.Errorf("recorded request helpers: model=%q system=%q user=%q key=%q stream=%v", r.Model(), r.System(), r.LastUserText(), r.APIKey(), r.Stream())
	}
	if diff := cmp.Diff([]string{"read_file"}, r.ToolNames()); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
}

func TestOpenAIStreamingSplitsArguments(t *testing.T) {
	s := NewServer(t, Script{Turns: []Turn{{Text: "two calls now", ToolCalls: []ToolCall{editCall, Call("read_file", map[string]string{"path": "x"})}}}})
	resp, err := post(t, t.Context(), s.URL()+"/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := sse(t, resp.Body)
	if last := events[len(events)-1][1]; last != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", last)
	}
	args := map[int]string{}
	pieces := map[int]int{}
	var text string
	var usage bool
	for _, ev := range events[:len(events)-1] {
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Index    int
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				}
			}
			Usage *struct {
				TotalTokens int64 `json:"total_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(ev[1]), &chunk); err != nil {
			t.Fatalf("chunk %s: %v", ev[1], err)
		}
		if chunk.Usage != nil && chunk.Usage.TotalTokens > 0 {
			usage = true
		}
		for _, c := range chunk.Choices {
			text += c.Delta.Content
			for _, tc := range c.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					args[tc.Index] += tc.Function.Arguments
					pieces[tc.Index]++
				}
			}
		}
	}
	if text != "two calls now" || !usage {
		t.Errorf("text %q usage %v", text, usage)
	}
	if args[0] != string(editCall.Args) || pieces[0] < 2 {
		t.Errorf("call 0 reassembled %q from %d pieces", args[0], pieces[0])
	}
	if args[1] != `{"path":"x"}` {
		t.Errorf("call 1 reassembled %q", args[1])
	}
}

func TestAnthropicStreaming(t *testing.T) {
	s := NewServer(t, Script{Turns: []Turn{{Text: "hi there", ToolCalls: []ToolCall{editCall}, ChunkSize: 5}}})
	resp, err := post(t, t.Context(), s.URL()+"/v1/messages",
		`{"model":"claude","stream":true,"system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"out","is_error":true}]}],"tools":[{"name":"grep","input_schema":{}}]}`,
		map[string]string{"X-Api-Key": "ak"})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var names []string
	var partial string
	for _, ev := range sse(t, resp.Body) {
		names = append(names, ev[0])
		var d struct {
			Delta struct {
				PartialJSON string `json:"partial_json"`
			}
		}
		json.Unmarshal([]byte(ev[1]), &d)
		partial += d.Delta.PartialJSON
	}
	if names[0] != "message_start" || names[len(names)-1] != "message_stop" {
		t.Errorf("event order %v", names)
	}
	if partial != string(editCall.Args) {
		t.Errorf("partial_json reassembled %q", partial)
	}
	r := s.Requests()[0]
	if r.Format != Anthropic || r.System() != "sys" || r.APIKey() != "ak" {
		t.Errorf("format %s system %q key %q", r.Format, r.System(), r.APIKey())
	}
	if diff := cmp.Diff([]ToolResult{{CallID: "toolu_9", Content: "out", IsError: true}}, r.ToolResults()); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"grep"}, r.ToolNames()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestFailures(t *testing.T) {
	s := NewServer(t, Script{APIKey: "good", Turns: []Turn{
		{Status: 429},
		{Status: 400, ErrorCode: "context_length_exceeded", Error: "too long"},
		{Text: "a b c d e f", Cut: true, After: 2},
	}})
	ctx := t.Context()
	resp, err := post(t, ctx, s.URL()+"/chat/completions", `{}`, map[string]string{"Authorization": "Bearer bad"})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("bad key: status %d, want 401", resp.StatusCode)
	}
	good := map[string]string{"Authorization": "Bearer good"}
	resp, err = post(t, ctx, s.URL()+"/chat/completions", `{}`, good)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After-Ms") == "" {
		t.Errorf("turn 0: status %d, want 429 with retry-after-ms (the key check must not consume a turn)", resp.StatusCode)
	}
	resp, err = post(t, ctx, s.URL()+"/chat/completions", `{}`, good)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(body, []byte(`"code":"context_length_exceeded"`)) {
		t.Errorf("turn 1: %d %s", resp.StatusCode, body)
	}
	resp, err = post(t, ctx, s.URL()+"/chat/completions", `{"stream":true}`, good)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("turn 2: a cut stream read to the end without error")
	}
	resp, err = post(t, ctx, s.URL()+"/chat/completions", `{}`, good)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(body, []byte("script exhausted")) {
		t.Errorf("past the script: %d %s", resp.StatusCode, body)
	}
	if got := len(s.Requests()); got != 5 {
		t.Errorf("recorded %d requests, want 5", got)
	}
}

func TestHangReleasedByCancelAndClose(t *testing.T) {
	s, err := Start(Script{Turns: []Turn{{Text: "a b c d", Hang: true}, {Hang: true}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := post(t, ctx, s.URL()+"/messages", `{"stream":true}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first events arrive; then the stream hangs until cancelled.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: message_start") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("a cancelled hanging stream ended without error")
	}
	resp.Body.Close()

	// A non-streaming hang is released by Close, which must not block.
	errc := make(chan error, 1)
	go func() {
		resp, err := post(t, context.Background(), s.URL()+"/messages", `{}`, nil)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	if _, err := s.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a hanging handler")
	}
	<-errc
}

func TestParseScript(t *testing.T) {
	s, err := ParseScript([]byte(`[{"tool_calls":[{"name":"edit_file","args":{"path":"calc.go","old_string":"a","new_string":"b"}}]},{"text":"done"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 2 || s.Turns[0].ToolCalls[0].arguments() != `{"path":"calc.go","old_string":"a","new_string":"b"}` || s.Turns[1].Text != "done" {
		t.Errorf("parsed %+v", s)
	}
	for _, bad := range []string{
		`{"turns":[{"txt":"typo"}]}`,
		`[{"tool_calls":[{"name":"x","args":[1]}]}]`,
		`[{"tool_calls":[{"args":{}}]}]`,
		`[{"cut":true,"hang":true}]`,
		`[{"status":200}]`,
	} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) accepted a bad script", bad)
		}
	}
}
