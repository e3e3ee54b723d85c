// Package agenttest provides scripted model servers: real HTTP servers
// that speak the OpenAI chat-completions and Anthropic Messages wire
// formats (streaming SSE and not), replay scripted turns by request
// index, and record every request they receive for assertions.
//
// They exist so that tests of the agent loop, the LSP and the editor
// clients exercise the real SDKs over real HTTP, without replaying
// recorded bodies (which break at every prompt change).
package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Script is what a server replays: request n (0-based, counted across
// both wire formats) is answered with Turns[n]. A request beyond the
// last turn gets a 400 error naming the script's length, so a test that
// expects fewer model calls fails loudly instead of hanging.
type Script struct {
	Turns []Turn `json:"turns"`
	// APIKey, if set, is required: a request without it (Authorization:
	// Bearer for OpenAI, x-api-key for Anthropic) is answered 401 without
	// consuming a turn.
	APIKey string `json:"api_key,omitempty"`
	// ContextWindow, if set, refuses a request whose body counts more
	// tokens than this (Tokens of its size) with the provider's
	// context-length error, without consuming a turn.
	ContextWindow int `json:"context_window,omitempty"`
	// Served, if set, makes the server report the context window it runs
	// the model with, as Ollama, llama.cpp, vLLM, LM Studio or OpenRouter
	// do (served.go). For Ollama, a request longer than that window is
	// answered as Ollama does: its start is dropped and the request is
	// marked Truncated.
	Served *Served `json:"served,omitempty"`
	// Models are the model ids GET …/models lists; none lists "scripted".
	Models []string `json:"models,omitempty"`
	// OllamaTags lists Models only as Ollama's native GET /api/tags
	// does, GET …/models answering 404, as an Ollama without its
	// OpenAI-compatible listing.
	OllamaTags bool `json:"ollama_tags,omitempty"`
}

// Turn is one model answer: text and/or tool calls, or an injected
// failure.
type Turn struct {
	// Text is the assistant's text. Streamed in several deltas.
	Text string `json:"text,omitempty"`
	// ToolCalls are the tools the model calls in this turn (several =
	// parallel tool calls).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// Stop, if set, is the stop reason sent instead of the usual one:
	// OpenAI's finish_reason ("content_filter") or Anthropic's
	// stop_reason ("refusal"), as the requested wire format names it.
	Stop string `json:"stop,omitempty"`
	// Refusal is OpenAI's refusal message (message.refusal, streamed as
	// delta.refusal); Anthropic has none and ignores it.
	Refusal string `json:"refusal,omitempty"`

	// Status, if non-zero, answers with this HTTP status and an error
	// body in the requested wire format instead of a message.
	Status int `json:"status,omitempty"`
	// Error is the error message for Status (a default per status otherwise).
	Error string `json:"error,omitempty"`
	// ErrorCode is the provider's error code/type, e.g.
	// "context_length_exceeded" or "model_not_found" (OpenAI), or
	// "invalid_request_error" (Anthropic). A default per status otherwise.
	ErrorCode string `json:"error_code,omitempty"`

	// Cut aborts the connection mid-answer: after After stream events
	// (default: half of them), or before any body when not streaming.
	Cut bool `json:"cut,omitempty"`
	// Hang stops answering after After stream events (default: half; no
	// body when not streaming) and waits until the client goes away or
	// the server is closed.
	Hang bool `json:"hang,omitempty"`
	// After is the number of SSE events sent before Cut or Hang.
	After int `json:"after,omitempty"`
	// Stall accepts the request and then sends nothing at all, not even
	// a status line, until the client goes away or the server is closed:
	// a wedged model server.
	Stall bool `json:"stall,omitempty"`
	// IntervalMS waits this long before each stream event after the
	// first; not streaming, the body is sent in Pieces pieces this far
	// apart. A model that is slow but steady.
	IntervalMS int `json:"interval_ms,omitempty"`
	// Pieces is how many pieces a non-streamed body is sent in when
	// IntervalMS is set; 0 means five.
	Pieces int `json:"pieces,omitempty"`

	// DelayMS waits this long before answering (never a test's way of
	// synchronising: use it only to make progress visible in editors).
	DelayMS int `json:"delay_ms,omitempty"`
	// ChunkSize splits streamed tool-call arguments into pieces of this
	// many bytes; 0 splits them into three pieces, so every streamed
	// call exercises reassembly.
	ChunkSize int `json:"chunk_size,omitempty"`
	// InputTokens and OutputTokens are the usage reported; 0 picks a
	// value from the request and answer sizes.
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	// CachedTokens are reported as read from the prompt cache (part of
	// the input tokens): prompt_tokens_details.cached_tokens for OpenAI,
	// cache_read_input_tokens for Anthropic (whose input_tokens then
	// leaves them out, as the API does).
	CachedTokens int64 `json:"cached_tokens,omitempty"`
}

// ToolCall is one tool call in a turn.
type ToolCall struct {
	// ID is the call id; "" generates call_<turn>_<i> (OpenAI) or
	// toolu_<turn>_<i> (Anthropic).
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Args are the arguments, a JSON object:
	//   {"name": "edit_file", "args": {"path": "calc.go", "old_string": "a - b", "new_string": "a + b"}}
	Args json.RawMessage `json:"args,omitempty"`
	// RawArgs, if set, is sent verbatim instead of Args, for malformed
	// arguments ("{\"path\": ").
	RawArgs string `json:"raw_args,omitempty"`
}

// arguments returns the argument text as the wire carries it.
func (c ToolCall) arguments() string {
	if c.RawArgs != "" {
		return c.RawArgs
	}
	if len(bytes.TrimSpace(c.Args)) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.Args); err != nil {
		return string(c.Args)
	}
	return buf.String()
}

// Call is shorthand for a ToolCall whose arguments are args marshalled
// to JSON: Call("edit_file", map[string]any{"path": "calc.go", ...}).
func Call(name string, args any) ToolCall {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("agenttest.Call %s: %v", name, err)) // a test's own mistake
	}
	return ToolCall{Name: name, Args: raw}
}

// TextTurn is a turn that answers text only.
func TextTurn(text string) Turn { return Turn{Text: text} }

// CallTurn is a turn that calls the given tools (in parallel if several).
func CallTurn(calls ...ToolCall) Turn { return Turn{ToolCalls: calls} }

// ParseScript decodes a script: either {"turns": [...], "api_key": ...}
// or a bare array of turns. Unknown fields are errors, so a typo in an
// editor test's script does not silently change what it tests.
func ParseScript(data []byte) (Script, error) {
	data = bytes.TrimSpace(data)
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var err error
	if len(data) > 0 && data[0] == '[' {
		err = dec.Decode(&s.Turns)
	} else {
		err = dec.Decode(&s)
	}
	if err != nil {
		return Script{}, fmt.Errorf("parse script: %w", err)
	}
	for i, t := range s.Turns {
		if err := t.validate(); err != nil {
			return Script{}, fmt.Errorf("parse script: turn %d: %w", i, err)
		}
	}
	return s, nil
}

// LoadScript reads and parses a script file.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func (t Turn) validate() error {
	if t.Cut && t.Hang || t.Stall && (t.Cut || t.Hang || t.Status != 0) {
		return fmt.Errorf("cut, hang, stall and status are exclusive")
	}
	if t.IntervalMS < 0 || t.DelayMS < 0 || t.Pieces < 0 {
		return fmt.Errorf("delay_ms, interval_ms and pieces must not be negative")
	}
	if t.Status != 0 && (t.Status < 400 || t.Status > 599) {
		return fmt.Errorf("status %d is not an error status", t.Status)
	}
	for i, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", i)
		}
		if len(c.Args) > 0 && c.RawArgs != "" {
			return fmt.Errorf("tool call %d (%s) has both args and raw_args", i, c.Name)
		}
		if len(c.Args) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(c.Args, &obj); err != nil {
				return fmt.Errorf("tool call %d (%s): args must be a JSON object (use raw_args for malformed arguments): %v", i, c.Name, err)
			}
		}
	}
	return nil
}
