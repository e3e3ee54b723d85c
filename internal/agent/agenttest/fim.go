package agenttest

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// The fill-in-the-middle wire formats code completion uses: OpenAI's
// legacy completions (POST …/completions with prompt and suffix, which
// Ollama, llama.cpp and vLLM copy) and Ollama's own POST /api/generate
// (prompt, suffix, raw). Both are answered whole (stream false), with
// the turn's Text as the completion.

// Prompt returns the prompt of a completions or generate request.
func (r Request) Prompt() string { s, _ := r.Body["prompt"].(string); return s }

// Suffix returns the suffix of a completions or generate request ("" if
// none was sent).
func (r Request) Suffix() string { s, _ := r.Body["suffix"].(string); return s }

// HasSuffix reports whether the request sent a suffix member at all.
func (r Request) HasSuffix() bool { _, ok := r.Body["suffix"]; return ok }

// answerFIM answers a completions or generate request with turn.
func (s *Server) answerFIM(w http.ResponseWriter, r *http.Request, turn Turn, req Request) {
	if turn.Hang || turn.Cut {
		if turn.Cut {
			panic(http.ErrAbortHandler)
		}
		s.hang(r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, out := usageOf(turn, req)
	in := Tokens(len(req.Raw))
	if req.Format == Ollama {
		w.Write(mustJSON(map[string]any{
			"model": req.Model(), "created_at": time.Now().UTC().Format(time.RFC3339Nano),
			"response": turn.Text, "done": true, "done_reason": "stop",
			"prompt_eval_count": in, "eval_count": out,
		}))
		return
	}
	finish := turn.Stop
	if finish == "" {
		finish = "stop"
	}
	w.Write(mustJSON(map[string]any{
		"id": fmt.Sprintf("cmpl-%d", req.Index), "object": "text_completion", "created": 0, "model": req.Model(),
		"choices": []any{map[string]any{"text": turn.Text, "index": 0, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}))
}

// noteGone records, when a request's handler ends because its client
// went away (a cancelled completion), when that was.
func (s *Server) noteGone(r *http.Request, index int) {
	if r.Context().Err() == nil {
		return
	}
	select {
	case <-s.done:
		return // the server closed, not the client
	default:
	}
	s.mu.Lock()
	if s.gone == nil {
		s.gone = map[int]time.Time{}
	}
	s.gone[index] = time.Now()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// WaitGone waits until the client of request index went away before its
// answer was complete (it closed the connection) or ctx ends, and
// returns when the server saw it go.
func (s *Server) WaitGone(ctx context.Context, index int) (time.Time, error) {
	for {
		s.mu.Lock()
		at, ok := s.gone[index]
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("waiting for the client of request %d to go away: %w", index, ctx.Err())
		}
	}
}

// OllamaURL returns the base URL of Ollama's own API, without /v1:
// "http://127.0.0.1:PORT" (POST /api/generate is answered there).
func (s *Server) OllamaURL() string { return s.srv.URL }
