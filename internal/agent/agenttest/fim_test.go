package agenttest

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// Both completion wire formats answer the turn's text, record prompt and
// suffix, and a client that goes away is seen going.
func TestFIMEndpoints(t *testing.T) {
	s := NewServer(t, Script{Turns: []Turn{TextTurn("a + b"), TextTurn("x := 1"), {Hang: true}}})
	ctx := context.Background()

	res, err := post(t, ctx, s.URL()+"/completions", `{"model":"m","prompt":"func add(a, b int) int { return ","suffix":" }"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var oai struct {
		Object  string `json:"object"`
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if err := json.Unmarshal(body, &oai); err != nil || oai.Object != "text_completion" || len(oai.Choices) != 1 || oai.Choices[0].Text != "a + b" {
		t.Fatalf("completions answered %s (%v)", body, err)
	}

	res, err = post(t, ctx, s.OllamaURL()+"/api/generate", `{"model":"m","prompt":"p","suffix":"s","stream":false}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var oll struct {
		Response string `json:"response"`
		Done     bool   `json:"done"`
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if err := json.Unmarshal(body, &oll); err != nil || !oll.Done || oll.Response != "x := 1" {
		t.Fatalf("generate answered %s (%v)", body, err)
	}
	reqs := s.Requests()
	if reqs[0].Format != OpenAICompletions || reqs[0].Suffix() != " }" || reqs[1].Format != Ollama || reqs[1].Prompt() != "p" || reqs[1].Suffix() != "s" {
		t.Errorf("recorded %+v", reqs)
	}

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := post(t, cctx, s.OllamaURL()+"/api/generate", `{"model":"m","prompt":"p"}`, nil)
		done <- err
	}()
	if _, err := s.WaitRequests(ctx, 3); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if _, err := s.WaitGone(wctx, 2); err != nil {
		t.Fatal(err)
	}
	// Request 0 was answered, and an answered request is never gone: a
	// context already done returns at once.
	ended, endNow := context.WithCancel(ctx)
	endNow()
	if _, err := s.WaitGone(ended, 0); err == nil {
		t.Error("request 0 was answered, not abandoned")
	}
}
