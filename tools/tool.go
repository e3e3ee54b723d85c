package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is one capability offered to the model: a name, a description and
// the JSON Schema of its input, plus the function that runs it.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// ReadOnly tools change nothing; the agent may run several at once
	// and offers them to answer-only commands such as "explain".
	ReadOnly bool
	// Run executes the tool with raw JSON arguments. A returned error is
	// turned into an error result for the model by Registry.Execute.
	Run func(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what the model sees of one tool call.
type Result struct {
	Output  string
	IsError bool
	// Edit describes the change a successful write made, for the
	// transcript and the editor. Nil for tools that changed nothing.
	Edit *EditInfo `json:",omitempty"`
}

// EditInfo is the diff metadata that travels with a write's result.
type EditInfo struct {
	Path    string // absolute path
	Rel     string // path relative to its root, for display
	Added   int
	Removed int
	Diff    string // compact unified diff
}

// Errorf returns an error result for the model.
func Errorf(format string, args ...any) Result {
	return Result{Output: "Error: " + fmt.Sprintf(format, args...), IsError: true}
}

// Text returns a successful result.
func Text(s string) Result { return Result{Output: s} }

// NewTool builds a Tool whose input schema is inferred from In (use
// `json` tags for names, `jsonschema:"..."` tags for descriptions; fields
// without omitempty are required). Arguments are validated against the
// schema and decoded into In before run is called, so run never sees
// missing or wrongly typed arguments.
func NewTool[In any](name, description string, run func(ctx context.Context, in In) (Result, error)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err)) // programming error, found by tests
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal schema: %v", name, err))
	}
	return Tool{
		Name:        name,
		Description: description,
		InputSchema: raw,
		Run: func(ctx context.Context, args json.RawMessage) (Result, error) {
			in, err := decodeArgs[In](resolved, args)
			if err != nil {
				return Errorf("invalid arguments for %s: %v", name, err), nil
			}
			return run(ctx, in)
		},
	}
}

// NewRawTool builds a Tool from a schema given as JSON, for tools whose
// schema comes from elsewhere (MCP servers). run receives the arguments
// as they came.
func NewRawTool(name, description string, schema json.RawMessage, run func(ctx context.Context, args json.RawMessage) (Result, error)) Tool {
	return Tool{Name: name, Description: description, InputSchema: schema, Run: run}
}

func decodeArgs[In any](rs *jsonschema.Resolved, args json.RawMessage) (In, error) {
	var in In
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	var generic any
	if err := json.Unmarshal(args, &generic); err != nil {
		return in, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := generic.(map[string]any); !ok {
		return in, fmt.Errorf("arguments must be a JSON object, got %s", truncate(string(args), 80))
	}
	if err := rs.Validate(generic); err != nil {
		return in, err
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, err
	}
	return in, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
