package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is one capability offered to the model: its Spec (name,
// description, input schema) and the function that runs it.
type Tool struct {
	Spec
	// ReadOnly tools change nothing; the agent may run several at once
	// and offers them to answer-only commands such as "explain".
	ReadOnly bool
	// Run executes the tool with raw JSON arguments. A returned error is
	// turned into an error result for the model by Registry.Execute.
	Run func(ctx context.Context, args json.RawMessage) (Result, error)
	// Describe, if set, is the description for the run whose settings
	// ctx carries (its Options, its RunView): what applies in that run
	// and not every case. Spec.Description is the description outside a
	// run (`cb-ls tools list`, the editor's tool list). See SpecFor.
	Describe func(ctx context.Context) string
}

// Result is what the model sees of one tool call.
type Result struct {
	Output  string
	IsError bool
	// Edits describe the changes a successful write made, one per file
	// (apply_patch changes several), for the transcript, the session and
	// the editor. Empty for tools that changed nothing.
	Edits []EditInfo `json:",omitempty"`
	// Read says which file's text Output shows (read_file), so that the
	// agent can tell when that text is out of date. Nil for other results.
	Read *ReadText `json:",omitempty"`
}

// ReadText is the part of a result that shows a file's text as it was
// when the tool ran.
type ReadText struct {
	Path  string // absolute path, as filestate.FileStates keys it
	Bytes int    // the length of Output's prefix that shows it; what follows is other news
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
	if _, err := schema.Resolve(nil); err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal schema: %v", name, err))
	}
	return Tool{
		Spec: Spec{Name: name, Description: description, InputSchema: wireSchema(raw)},
		Run: func(ctx context.Context, args json.RawMessage) (Result, error) {
			in, err := decodeArgs[In](schema, args)
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
	return Tool{Spec: Spec{Name: name, Description: description, InputSchema: schema}, Run: run}
}

// decodeArgs checks args against the tool's schema and decodes them.
// Top-level properties are checked by hand (present when required, known,
// of the right JSON type) and the typed decode does the rest: this parses
// the arguments twice at most, where generic schema validation would
// build a map of every value first and cost a second for a 10 MB
// write_file.
func decodeArgs[In any](schema *jsonschema.Schema, args json.RawMessage) (In, error) {
	var in In
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return in, fmt.Errorf("arguments must be a JSON object, got %s", truncate(string(args), 80))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return in, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	for _, name := range schema.Required {
		if _, ok := fields[name]; !ok {
			return in, fmt.Errorf("missing required argument %q", name)
		}
	}
	coerced := false
	for name, raw := range fields {
		prop, ok := schema.Properties[name]
		if !ok {
			return in, fmt.Errorf("unknown argument %q (expected one of %s)", name, propertyNames(schema))
		}
		if v, ok := coerceScalar(prop, raw); ok {
			fields[name], raw, coerced = v, v, true
		}
		if err := checkType(name, prop, raw); err != nil {
			return in, err
		}
	}
	if coerced {
		// Rare (small models), and the arguments are then small: the
		// re-encoding costs nothing that matters.
		var err error
		if args, err = json.Marshal(fields); err != nil {
			return in, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return in, fmt.Errorf("argument %q must be %s, not a JSON %s", te.Field, kindOf(te.Type), te.Value)
		}
		return in, err
	}
	return in, nil
}

// coerceScalar turns a string argument into the integer, number or
// boolean the schema asks for when the string is exactly one ("10",
// "true"): small local models often quote every value. Anything else is
// left for checkType to reject.
func coerceScalar(prop *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return nil, false
	}
	want := prop.Types
	if prop.Type != "" {
		want = []string{prop.Type}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	s = strings.TrimSpace(s)
	for _, w := range want {
		switch w {
		case "string":
			return nil, false // a string is welcome as it is
		case "integer":
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return json.RawMessage(strconv.FormatInt(n, 10)), true
			}
		case "number":
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
			}
		case "boolean":
			if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
				return json.RawMessage(strings.ToLower(s)), true
			}
		}
	}
	return nil, false
}

// checkType compares the JSON kind of raw with the schema's type (or
// types: Go slices are inferred as ["null", "array"]).
func checkType(name string, prop *jsonschema.Schema, raw json.RawMessage) error {
	want := prop.Types
	if prop.Type != "" {
		want = []string{prop.Type}
	}
	if len(want) == 0 {
		return nil
	}
	var got string
	switch c := raw[0]; {
	case c == '"':
		got = "string"
	case c == '{':
		got = "object"
	case c == '[':
		got = "array"
	case c == 't' || c == 'f':
		got = "boolean"
	case c == 'n':
		got = "null"
	default:
		got = "number"
		if !bytes.ContainsAny(raw, ".eE") {
			got = "integer"
		}
	}
	for _, w := range want {
		if got == w || (w == "number" && got == "integer") {
			return nil
		}
	}
	return fmt.Errorf("argument %q must be of type %s, got %s", name, strings.Join(slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "null" }), " or "), got)
}

func propertyNames(s *jsonschema.Schema) string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, strconv.Quote(n))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
