package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
)

type echoInput struct {
	Path  string `json:"path" jsonschema:"the path"`
	Count int    `json:"count,omitempty"`
	Flag  bool   `json:"flag,omitempty"`
}

func echoRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	mustRegister(t, r, NewTool("echo", "echoes", func(ctx context.Context, in echoInput) (Result, error) {
		return Text(in.Path), nil
	}))
	mustRegister(t, r, NewTool("boom", "panics", func(ctx context.Context, in struct{}) (Result, error) {
		panic("kaboom")
	}))
	mustRegister(t, r, NewTool("fails", "returns an error", func(ctx context.Context, in struct{}) (Result, error) {
		return Result{}, errors.New("disk on fire")
	}))
	return r
}

func mustRegister(t *testing.T, r *Registry, tool Tool) {
	t.Helper()
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
}

func TestExecute(t *testing.T) {
	r := echoRegistry(t)
	tests := []struct {
		name, tool, args string
		want             string // substring of the output
		isError          bool
	}{
		{"ok", "echo", `{"path":"a.go"}`, "a.go", false},
		{"extra whitespace", "echo", " \n{\"path\":\"b.go\",\"count\":2}\n", "b.go", false},
		{"unknown tool", "ech", `{}`, `Error: unknown tool "ech"`, true},
		{"case matters", "Echo", `{}`, `unknown tool "Echo"`, true},
		{"missing required", "echo", `{}`, `missing required argument "path"`, true},
		{"null args", "echo", `null`, `missing required argument "path"`, true},
		{"wrong type", "echo", `{"path":3}`, `argument "path" must be of type string, got integer`, true},
		{"float for int", "echo", `{"path":"x","count":1.5}`, `"count" must be of type integer`, true},
		{"quoted integer", "echo", `{"path":"c.go","count":"10"}`, "c.go", false},
		{"quoted boolean", "echo", `{"path":"d.go","flag":"true"}`, "d.go", false},
		{"quoted nonsense for int", "echo", `{"path":"x","count":"ten"}`, `argument "count" must be of type integer, got string`, true},
		{"quoted float for int", "echo", `{"path":"x","count":"1.5"}`, `"count" must be of type integer, got string`, true},
		{"quoted yes for bool", "echo", `{"path":"x","flag":"yes"}`, `argument "flag" must be of type boolean, got string`, true},
		{"unknown argument", "echo", `{"path":"x","pth":"y"}`, `unknown argument "pth"`, true},
		{"not an object", "echo", `["x"]`, "must be a JSON object", true},
		{"malformed JSON", "echo", `{"path":`, "not valid JSON", true},
		{"panic", "boom", `{}`, "failed internally: kaboom", true},
		{"tool error", "fails", `{}`, "Error: disk on fire", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Execute(t.Context(), tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Execute returned a run error: %v", err)
			}
			if res.IsError != tt.isError || !strings.Contains(res.Output, tt.want) {
				t.Errorf("got %+v, want IsError=%v and output containing %q", res, tt.isError, tt.want)
			}
		})
	}
}

// TestQuotedScalarsArriveTyped: "10" and "true" reach the tool as the
// integer and boolean its schema asks for.
func TestQuotedScalarsArriveTyped(t *testing.T) {
	r := NewRegistry()
	var got echoInput
	mustRegister(t, r, NewTool("typed", "records", func(ctx context.Context, in echoInput) (Result, error) {
		got = in
		return Text("ok"), nil
	}))
	res, err := r.Execute(t.Context(), "typed", json.RawMessage(`{"path":"7","count":" 10 ","flag":"TRUE"}`))
	if err != nil || res.IsError {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if got != (echoInput{Path: "7", Count: 10, Flag: true}) {
		t.Errorf("the tool got %+v, want path \"7\" (a string stays a string), count 10, flag true", got)
	}
}

func TestExecuteCancelled(t *testing.T) {
	r := echoRegistry(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := r.Execute(ctx, "echo", json.RawMessage(`{"path":"x"}`))
	if !errors.Is(err, context.Canceled) || !res.IsError {
		t.Fatalf("got %+v, %v; want an error result and context.Canceled", res, err)
	}
}

func TestRegistryRegisterAndList(t *testing.T) {
	r := echoRegistry(t)
	if err := r.Register(NewTool("echo", "again", func(ctx context.Context, in struct{}) (Result, error) { return Text(""), nil })); err == nil {
		t.Error("registering a duplicate name succeeded")
	}
	var names []string
	for _, tool := range r.List() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "boom,echo,fails" {
		t.Errorf("List = %s, want sorted boom,echo,fails", got)
	}
	mustRegister(t, r, NewRawTool("mcp_s_a", "", json.RawMessage(`{"type":"object"}`), func(ctx context.Context, args json.RawMessage) (Result, error) { return Text(string(args)), nil }))
	mustRegister(t, r, NewRawTool("mcp_s_b", "", json.RawMessage(`{"type":"object"}`), func(ctx context.Context, args json.RawMessage) (Result, error) { return Text(""), nil }))
	if n := r.UnregisterPrefix("mcp_s_"); n != 2 {
		t.Errorf("UnregisterPrefix removed %d, want 2", n)
	}
	if _, ok := r.Get("mcp_s_a"); ok {
		t.Error("mcp_s_a still registered")
	}
}

func TestSchemaInferred(t *testing.T) {
	r := echoRegistry(t)
	tool, _ := r.Get("echo")
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "path" || len(schema.Properties) != 3 {
		t.Errorf("schema = %s", tool.InputSchema)
	}
	specs := Specs(r.List())
	if specs[1].Name != "echo" || string(specs[1].InputSchema) != string(tool.InputSchema) {
		t.Errorf("Spec = %+v", specs[1])
	}
	raw, err := json.Marshal(specs[1])
	if err != nil {
		t.Fatal(err)
	}
	var wire map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wire); err != nil || len(wire) != 3 || wire["name"] == nil || wire["description"] == nil || string(wire["input_schema"]) != string(tool.InputSchema) {
		t.Errorf("Spec as JSON = %s, want name, description and input_schema", raw)
	}
}

// TestRegisterLazy: a lazily registered tool is built when it is first
// run, got or listed, once, and not before; its name is taken at once.
func TestRegisterLazy(t *testing.T) {
	r := echoRegistry(t)
	builds := map[string]int{}
	lazy := func(name string) {
		t.Helper()
		if err := r.RegisterLazy(name, func() Tool {
			builds[name]++
			return NewTool(name, "lazy "+name, func(ctx context.Context, in echoInput) (Result, error) {
				return Text(name + ":" + in.Path), nil
			})
		}); err != nil {
			t.Fatal(err)
		}
	}
	lazy("lazy_a")
	lazy("lazy_b")
	lazy("lazy_c")
	if err := r.RegisterLazy("echo", func() Tool { return Tool{} }); err == nil {
		t.Error("RegisterLazy of a name Register took succeeded")
	}
	if err := r.Register(NewTool("lazy_a", "eager", func(ctx context.Context, in struct{}) (Result, error) { return Text(""), nil })); err == nil {
		t.Error("Register of a name RegisterLazy took succeeded")
	}
	if len(builds) != 0 {
		t.Fatalf("built before use: %v", builds)
	}

	res, err := r.Execute(t.Context(), "lazy_a", json.RawMessage(`{"path":"x"}`))
	if err != nil || res.Output != "lazy_a:x" {
		t.Fatalf("Execute(lazy_a) = %+v, %v", res, err)
	}
	if _, err := r.Execute(t.Context(), "lazy_a", json.RawMessage(`{"path":"y"}`)); err != nil {
		t.Fatal(err)
	}
	if builds["lazy_a"] != 1 || builds["lazy_b"] != 0 || builds["lazy_c"] != 0 {
		t.Fatalf("after two runs of lazy_a, builds = %v; want lazy_a once, no other", builds)
	}

	r.Unregister("lazy_c")
	var names []string
	for _, tool := range r.List() {
		names = append(names, tool.Name+"="+tool.Description)
	}
	if got, want := strings.Join(names, ","), "boom=panics,echo=echoes,fails=returns an error,lazy_a=lazy lazy_a,lazy_b=lazy lazy_b"; got != want {
		t.Errorf("List = %s\nwant   %s", got, want)
	}
	if builds["lazy_b"] != 1 || builds["lazy_c"] != 0 {
		t.Errorf("after List, builds = %v; want lazy_b built, lazy_c (unregistered) not", builds)
	}
	if _, ok := r.Get("lazy_c"); ok {
		t.Error("lazy_c is still there after Unregister")
	}
	lazy("lazy_p1")
	lazy("lazy_p2")
	if n := r.UnregisterPrefix("lazy_p"); n != 2 {
		t.Errorf("UnregisterPrefix removed %d lazy tools, want 2", n)
	}
	if len(r.List()) != 5 || builds["lazy_p1"]+builds["lazy_p2"] != 0 {
		t.Errorf("after UnregisterPrefix: %d tools, builds %v", len(r.List()), builds)
	}
}

// TestRegisterLazyConcurrent: concurrent first uses build a tool once.
func TestRegisterLazyConcurrent(t *testing.T) {
	r := NewRegistry()
	var builds atomic.Int32
	if err := r.RegisterLazy("once", func() Tool {
		builds.Add(1)
		return NewTool("once", "", func(ctx context.Context, in struct{}) (Result, error) { return Text("ok"), nil })
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				r.List()
				return
			}
			if res, err := r.Execute(t.Context(), "once", nil); err != nil || res.Output != "ok" {
				t.Errorf("Execute = %+v, %v", res, err)
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times, want once", n)
	}
}

// TestRegisterLazyWrongName: a builder that returns another tool is a
// programming error, reported as a failed call rather than run as the
// wrong tool.
func TestRegisterLazyWrongName(t *testing.T) {
	r := NewRegistry()
	if err := r.RegisterLazy("right", func() Tool { return echoRegistry(t).tools["echo"] }); err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(t.Context(), "right", json.RawMessage(`{"path":"x"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Output, `the builder returned "echo"`) {
		t.Errorf("Execute = %+v, %v; want an internal failure naming the wrong tool", res, err)
	}
}

// TestBuiltinsLazySameSpecs: the built-in tools, registered lazily, list
// exactly the specs (and read-only marks) their factories build, so
// what the model is offered and "cb-ls tools list" print are unchanged.
func TestBuiltinsLazySameSpecs(t *testing.T) {
	g, err := guard.New([]string{t.TempDir()}, guard.ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Workspace: DiskWorkspace{}}
	reg := NewRegistry()
	if err := RegisterBuiltins(reg, tc); err != nil {
		t.Fatal(err)
	}
	var want []Tool
	for _, b := range Builtins {
		tool := b.New(tc)
		if tool.Name != b.Name {
			t.Errorf("Builtins names %q for the tool %q", b.Name, tool.Name)
		}
		want = append(want, tool)
	}
	slices.SortFunc(want, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	got := reg.List()
	gotJSON, _ := json.Marshal(Specs(got))
	wantJSON, _ := json.Marshal(Specs(want))
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("lazy specs differ from the factories':\n got %s\nwant %s", gotJSON, wantJSON)
	}
	for i := range min(len(got), len(want)) {
		if got[i].ReadOnly != want[i].ReadOnly {
			t.Errorf("%s: ReadOnly %t, the factory says %t", got[i].Name, got[i].ReadOnly, want[i].ReadOnly)
		}
	}
}
