package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Format is a wire format.
type Format string

const (
	OpenAI    Format = "openai"    // POST …/chat/completions
	Anthropic Format = "anthropic" // POST …/messages
	// OpenAICompletions is OpenAI's legacy completions: POST …/completions.
	OpenAICompletions Format = "openai-completions"
	// Ollama is Ollama's own generate: POST /api/generate.
	Ollama Format = "ollama"
)

// Request is one request the server received.
type Request struct {
	// Index is the turn it was answered with (-1 if it was refused before
	// taking one: bad JSON, missing key).
	Index  int            `json:"index"`
	Format Format         `json:"format"`
	Path   string         `json:"path"`
	Header http.Header    `json:"header"`
	Body   map[string]any `json:"body"`
	Raw    []byte         `json:"-"`
	// Truncated is set when a Served Ollama server dropped the start of
	// this request because it was longer than its window, as Ollama does
	// without a word.
	Truncated bool `json:"truncated,omitempty"`
}

// Stream reports whether the client asked for SSE.
func (r Request) Stream() bool { b, _ := r.Body["stream"].(bool); return b }

// Model returns the requested model.
func (r Request) Model() string { s, _ := r.Body["model"].(string); return s }

// APIKey returns the key the client sent (Authorization: Bearer for
// OpenAI, x-api-key for Anthropic).
func (r Request) APIKey() string {
	if r.Format == Anthropic {
		if k := r.Header.Get("X-Api-Key"); k != "" {
			return k
		}
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// ToolNames returns the names of the tools offered, in order.
func (r Request) ToolNames() []string {
	var names []string
	for _, t := range list(r.Body["tools"]) {
		m, _ := t.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok { // OpenAI
			m = fn
		}
		if n, ok := m["name"].(string); ok {
			names = append(names, n)
		}
	}
	return names
}

// System returns the system prompt.
func (r Request) System() string {
	if r.Format == Anthropic {
		return text(r.Body["system"])
	}
	var parts []string
	for _, m := range list(r.Body["messages"]) {
		mm, _ := m.(map[string]any)
		if role := mm["role"]; role == "system" || role == "developer" {
			parts = append(parts, text(mm["content"]))
		}
	}
	return strings.Join(parts, "\n")
}

// Message is one conversation message, the same for both formats.
type Message struct {
	Role        string // user, assistant, tool
	Text        string
	ToolCalls   []ToolCall   // assistant's calls
	ToolResults []ToolResult // results sent back
}

// ToolResult is a tool result the client sent back to the model.
type ToolResult struct {
	CallID  string
	Content string
	IsError bool // Anthropic only: OpenAI has no such flag
}

// Messages returns the conversation (system prompt excluded), with
// OpenAI's role "tool" messages as ToolResults of a Message with Role "tool".
func (r Request) Messages() []Message {
	var out []Message
	for _, m := range list(r.Body["messages"]) {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		if role == "system" || role == "developer" {
			continue
		}
		msg := Message{Role: role}
		if r.Format == OpenAI {
			msg.Text = text(mm["content"])
			for _, c := range list(mm["tool_calls"]) {
				cm, _ := c.(map[string]any)
				fn, _ := cm["function"].(map[string]any)
				id, _ := cm["id"].(string)
				name, _ := fn["name"].(string)
				args, _ := fn["arguments"].(string)
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: id, Name: name, RawArgs: args})
			}
			if role == "tool" {
				id, _ := mm["tool_call_id"].(string)
				msg.ToolResults = []ToolResult{{CallID: id, Content: msg.Text}}
			}
		} else {
			msg.Text = text(mm["content"])
			for _, b := range list(mm["content"]) {
				bm, _ := b.(map[string]any)
				switch bm["type"] {
				case "tool_use":
					id, _ := bm["id"].(string)
					name, _ := bm["name"].(string)
					args, _ := json.Marshal(bm["input"])
					msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: id, Name: name, RawArgs: string(args)})
				case "tool_result":
					id, _ := bm["tool_use_id"].(string)
					isErr, _ := bm["is_error"].(bool)
					msg.ToolResults = append(msg.ToolResults, ToolResult{CallID: id, Content: text(bm["content"]), IsError: isErr})
				}
			}
		}
		out = append(out, msg)
	}
	return out
}

// ToolResults returns every tool result in the conversation, in order.
func (r Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.Messages() {
		out = append(out, m.ToolResults...)
	}
	return out
}

// LastUserText returns the text of the last user message.
func (r Request) LastUserText() string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && msgs[i].Text != "" {
			return msgs[i].Text
		}
	}
	return ""
}

func list(v any) []any { l, _ := v.([]any); return l }

// text flattens a content value: a string, or an array of parts/blocks
// whose "text" fields are joined.
func text(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			pm, _ := p.(map[string]any)
			if t, ok := pm["text"].(string); ok {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
