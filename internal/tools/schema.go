package tools

import "encoding/json"

// Spec is a tool as the model sees it.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Specs returns the model-facing description of tools.
func Specs(ts []Tool) []Spec {
	out := make([]Spec, len(ts))
	for i, t := range ts {
		out[i] = Spec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}

// OpenAIFunction is the shape of one tool in OpenAI-style chat completions.
type OpenAIFunction struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// OpenAITools returns ts in the OpenAI tools format.
func OpenAITools(ts []Tool) []OpenAIFunction {
	out := make([]OpenAIFunction, len(ts))
	for i, t := range ts {
		out[i].Type = "function"
		out[i].Function.Name = t.Name
		out[i].Function.Description = t.Description
		out[i].Function.Parameters = t.InputSchema
	}
	return out
}

// AnthropicTools returns ts in the Anthropic Messages tools format
// ({name, description, input_schema}), which is also what
// `cb-ls tools list` prints.
func AnthropicTools(ts []Tool) []Spec { return Specs(ts) }
