package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a scripted model server. It answers POST …/chat/completions
// (OpenAI) and POST …/messages (Anthropic) under any prefix, so both
// SDKs work with the base URL URL() returns, and GET …/models; for code
// completion also POST …/completions (OpenAI's legacy completions, with
// suffix) and Ollama's POST /api/generate (fim.go).
type Server struct {
	srv    *httptest.Server
	script Script
	// Next, if set before the first request, picks the turn for request n
	// instead of Script.Turns: benchmarks use it to run many turns
	// without building a long script.
	Next func(n int, req Request) Turn
	// OnRequest, if set, is called with each recorded request (the
	// standalone program writes them to its --record file).
	OnRequest func(Request)
	// DiscardRequests keeps no record of requests (Requests returns
	// none), so that a long benchmark run measures the client's memory,
	// not the recorder's.
	DiscardRequests bool

	mu       sync.Mutex
	n        int // requests that consumed a turn
	requests []Request
	probes   []string          // window requests Served answered
	gone     map[int]time.Time // requests whose client went away, when
	changed  chan struct{}     // closed and replaced at each request
	done     chan struct{}     // closed by Close: releases hanging handlers
	closed   sync.Once
}

// NewServer starts a server on loopback replaying script and closes it
// when the test ends.
func NewServer(t testing.TB, script Script) *Server {
	t.Helper()
	s, err := Start(script, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server listening on addr ("127.0.0.1:0" for any port).
func Start(script Script, addr string) (*Server, error) {
	for i, t := range script.Turns {
		if err := t.validate(); err != nil {
			return nil, fmt.Errorf("turn %d: %w", i, err)
		}
	}
	if script.Served != nil {
		sv := *script.Served // the server changes it (loading): not the caller's
		script.Served = &sv
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s := &Server{script: script, changed: make(chan struct{}), done: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	return s, nil
}

// SetNext sets Next once the server may already be answering: a test
// that holds one request back (to act while a run waits for its model)
// sets it after the server started.
func (s *Server) SetNext(next func(n int, req Request) Turn) {
	s.mu.Lock()
	s.Next = next
	s.mu.Unlock()
}

// URL returns the base URL to configure a provider with:
// "http://127.0.0.1:PORT/v1". The OpenAI SDK appends chat/completions;
// the Anthropic SDK appends v1/messages, which this server also accepts.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases hanging handlers and stops the server.
func (s *Server) Close() {
	s.closed.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests waits until at least n requests have arrived or ctx ends,
// and returns the requests received.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	for {
		s.mu.Lock()
		got, ch := len(s.requests), s.changed
		s.mu.Unlock()
		if got >= n {
			return s.Requests(), nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return s.Requests(), fmt.Errorf("waiting for %d requests (got %d): %w", n, got, ctx.Err())
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if s.serveWindow(w, r, path) {
		return
	}
	var format Format
	switch {
	case r.Method == http.MethodGet && s.script.OllamaTags && path == "/api/tags":
		s.listTags(w)
		return
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models") && !s.script.OllamaTags:
		s.listModels(w)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		format = OpenAI
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		format = Anthropic
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/completions"):
		format = OpenAICompletions
	case r.Method == http.MethodPost && path == "/api/generate":
		format = Ollama
	default:
		http.Error(w, "agenttest: no such endpoint: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // client went away
	}
	req := Request{Format: format, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		req.Index = -1
		s.record(req)
		writeError(w, format, http.StatusBadRequest, "invalid_request_error", "agenttest: request body is not JSON: "+err.Error())
		return
	}
	if s.script.APIKey != "" && req.APIKey() != s.script.APIKey {
		req.Index = -1
		s.record(req)
		writeError(w, format, http.StatusUnauthorized, "", "")
		return
	}
	if limit := s.script.ContextWindow; limit > 0 && Tokens(len(raw)) > int64(limit) {
		// As a real provider does: refused, no turn consumed.
		req.Index = -1
		s.record(req)
		msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", limit, Tokens(len(raw)))
		if format == Anthropic {
			msg = fmt.Sprintf("prompt is too long: %d tokens > %d maximum", Tokens(len(raw)), limit)
			writeError(w, format, http.StatusBadRequest, "invalid_request_error", msg)
		} else {
			writeError(w, format, http.StatusBadRequest, "context_length_exceeded", msg)
		}
		return
	}
	if sv := s.script.Served; sv != nil && sv.Kind == "ollama" && Tokens(len(raw)) > int64(sv.Window) {
		req.Truncated = true
	}
	turn, ok := s.take(&req)
	if !ok {
		writeError(w, format, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("agenttest: script exhausted: request %d but the script has %d turns", req.Index, len(s.script.Turns)))
		return
	}
	defer s.noteGone(r, req.Index)
	if turn.DelayMS > 0 && !s.pause(r, turn.DelayMS) {
		return
	}
	if turn.Stall {
		s.hang(r)
		return
	}
	if turn.Status != 0 {
		writeError(w, format, turn.Status, turn.ErrorCode, turn.Error)
		return
	}
	if format == OpenAICompletions || format == Ollama {
		s.answerFIM(w, r, turn, req)
		return
	}
	var events []sseEvent
	if format == OpenAI {
		events = openAIEvents(turn, req)
	} else {
		events = anthropicEvents(turn, req)
	}
	if !req.Stream() {
		if turn.Cut {
			panic(http.ErrAbortHandler) // closes the connection without an answer
		}
		if turn.Hang {
			s.hang(r)
			return
		}
		var body []byte
		if format == OpenAI {
			body = openAIMessage(turn, req)
		} else {
			body = anthropicMessage(turn, req)
		}
		w.Header().Set("Content-Type", "application/json")
		if turn.IntervalMS <= 0 {
			w.Write(body)
			return
		}
		flusher, _ := w.(http.Flusher)
		pieces := turn.Pieces
		if pieces <= 0 {
			pieces = 5
		}
		size := (len(body) + pieces - 1) / pieces
		for i := 0; i < len(body); i += size {
			if i > 0 && !s.pause(r, turn.IntervalMS) {
				return
			}
			if _, err := w.Write(body[i:min(i+size, len(body))]); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		return
	}
	s.stream(w, r, turn, events)
}

// take records req and assigns it the next turn.
func (s *Server) take(req *Request) (Turn, bool) {
	s.mu.Lock()
	req.Index = s.n
	s.n++
	next := s.Next
	s.mu.Unlock()
	s.record(*req)
	if next != nil {
		return next(req.Index, *req), true
	}
	if req.Index >= len(s.script.Turns) {
		return Turn{}, false
	}
	return s.script.Turns[req.Index], true
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	if !s.DiscardRequests {
		s.requests = append(s.requests, req)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	on := s.OnRequest
	s.mu.Unlock()
	if on != nil {
		on(req)
	}
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, turn Turn, events []sseEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	stopAt := len(events)
	if turn.Cut || turn.Hang {
		stopAt = turn.After
		if stopAt <= 0 {
			stopAt = len(events) / 2
		}
		stopAt = min(stopAt, len(events))
	}
	var buf bytes.Buffer
	for i, ev := range events[:stopAt] {
		if i > 0 && turn.IntervalMS > 0 && !s.pause(r, turn.IntervalMS) {
			return
		}
		buf.Reset()
		if ev.name != "" {
			fmt.Fprintf(&buf, "event: %s\n", ev.name)
		}
		fmt.Fprintf(&buf, "data: %s\n\n", ev.data)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch {
	case turn.Cut:
		panic(http.ErrAbortHandler)
	case turn.Hang:
		s.hang(r)
	}
}

// pause waits ms milliseconds; false if the client went away or the
// server closed first.
func (s *Server) pause(r *http.Request, ms int) bool {
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// hang waits until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// sseEvent is one server-sent event: an optional name and its data.
type sseEvent struct {
	name string
	data []byte
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("agenttest: marshal: %v", err)) // only our own maps are marshalled
	}
	return b
}

// splitArgs splits s into pieces of size bytes (three pieces if size is
// 0), never inside a UTF-8 sequence.
func splitArgs(s string, size int) []string {
	if s == "" {
		return nil
	}
	if size <= 0 {
		size = max(1, (len(s)+2)/3)
	}
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && !utf8Start(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// splitText splits text into word-sized deltas, as models stream.
func splitText(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// tokens estimates a token count: about four bytes a token.
// Tokens is how many input tokens the server counts for a request body
// of n bytes (and reports in usage when a turn does not say).
func Tokens(n int) int64 { return int64(max(1, n/4)) }

// models are the script's models, or "scripted".
func (s *Server) models() []string {
	if len(s.script.Models) == 0 {
		return []string{"scripted"}
	}
	return s.script.Models
}

// listModels answers GET …/models with the script's models.
func (s *Server) listModels(w http.ResponseWriter) {
	ids := s.models()
	data := make([]map[string]any, len(ids))
	for i, id := range ids {
		data[i] = map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "agenttest"}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(map[string]any{"object": "list", "data": data}))
}

// listTags answers Ollama's GET /api/tags with the script's models.
func (s *Server) listTags(w http.ResponseWriter) {
	ids := s.models()
	models := make([]map[string]any, len(ids))
	for i, id := range ids {
		models[i] = map[string]any{"name": id, "model": id, "size": 1 << 30, "details": map[string]any{"format": "gguf"}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(map[string]any{"models": models}))
}
