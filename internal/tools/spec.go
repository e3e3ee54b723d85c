package tools

import "encoding/json"

// Spec is a tool as the model sees it: its name, what it does, and the
// JSON Schema of its input. It is the one description of a tool that
// every consumer shares: the providers turn it into their wire format
// (OpenAI's function, Anthropic's tool), the system prompt checks which
// tools are offered, MCP tools arrive as one, and `cb-ls tools list`
// prints it as JSON in Anthropic's shape.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Specs returns the specs of ts, in order.
func Specs(ts []Tool) []Spec {
	out := make([]Spec, len(ts))
	for i, t := range ts {
		out[i] = t.Spec
	}
	return out
}
