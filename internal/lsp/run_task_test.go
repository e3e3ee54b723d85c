package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestSelectionLines(t *testing.T) {
	for _, tc := range []struct {
		name       string
		r          protocol.Range
		start, end int
	}{
		{"within one line", protocol.Range{Start: pos(2, 3), End: pos(2, 9)}, 3, 3},
		{"cursor only", protocol.Range{Start: pos(4, 0), End: pos(4, 0)}, 5, 5},
		{"whole lines end at column 0", protocol.Range{Start: pos(3, 0), End: pos(6, 0)}, 4, 6},
		{"ends inside a line", protocol.Range{Start: pos(3, 0), End: pos(6, 1)}, 4, 7},
		{"reversed", protocol.Range{Start: pos(6, 2), End: pos(3, 1)}, 4, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end := selectionLines(tc.r)
			if start != tc.start || end != tc.end {
				t.Errorf("selectionLines = %d–%d, want %d–%d", start, end, tc.start, tc.end)
			}
		})
	}
}

func TestBuildTaskConvertsUTF16Selection(t *testing.T) {
	// "😀" is two UTF-16 units and four bytes: a byte-based conversion
	// would cut the selection in the wrong place.
	content := []byte("package p\n\n// 😀 add\nfunc Add(a, b int) int { return a - b }\n")
	r := protocol.Range{Start: pos(2, 6), End: pos(3, 4)}
	a := runArgs{Command: "fix", Range: &r, Input: "please"}
	task := buildTask(a, target{path: "/w/p.go", language: "go", content: content}, protocol.PositionEncodingKindUTF16)
	want := agent.Task{
		Command: "fix", Path: "/w/p.go", Language: "go", Content: content,
		StartLine: 3, EndLine: 4, Selection: "add\nfunc", Input: "please",
	}
	if diff := cmp.Diff(want, task); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
}

func TestBuildTaskFreeQuestion(t *testing.T) {
	task := buildTask(runArgs{Command: "ask", Input: "what is a goroutine?"}, target{}, protocol.PositionEncodingKindUTF16)
	if task.Path != "" || task.Content != nil || task.Input != "what is a goroutine?" {
		t.Errorf("free question task = %+v", task)
	}
}

func TestDecodeRunArgsAndDiagnostics(t *testing.T) {
	raw := `{"command":"fix","uri":"file:///w/p.go",
	  "range":{"start":{"line":1,"character":0},"end":{"line":2,"character":0}},
	  "diagnostics":[
	    {"range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}},"severity":1,"source":"compiler","code":"UndeclaredName","message":"undefined: x"},
	    {"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":1}},"severity":4,"code":1002,"message":{"kind":"markdown","value":"*hint*"}},
	    {"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"no severity"}
	  ]}`
	a, err := decodeRunArgs([][]byte{[]byte(raw)}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Diagnostic
	for _, d := range a.Diagnostics {
		got = append(got, convertDiagnostic(d))
	}
	want := []agent.Diagnostic{
		{Line: 2, Column: 5, Severity: "error", Source: "compiler", Code: "UndeclaredName", Message: "undefined: x"},
		{Line: 3, Column: 1, Severity: "hint", Code: "1002", Message: "*hint*"},
		{Line: 1, Column: 1, Message: "no severity"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestDecodeRunArgsRefusals(t *testing.T) {
	for _, tc := range []struct {
		raw, implied, want string
	}{
		{`{"uri":"file:///w/p.go"}`, "", "missing command"},
		{`{"command":"fix"}`, "", "missing uri"},
		{`{"command":"explain","uri":"file:///w/p.go"}`, "fix", "contradicts"},
		{`{"command":"fix","uri":"file:///w/p.go","range":"all"}`, "", "invalid argument"},
		{`[1,2]`, "", "invalid argument"},
	} {
		_, err := decodeRunArgs([][]byte{[]byte(tc.raw)}, tc.implied)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decodeRunArgs(%s) = %v, want %q", tc.raw, err, tc.want)
		}
	}
	if _, err := decodeRunArgs(nil, "fix"); err == nil {
		t.Errorf("no argument accepted")
	}
	if a, err := decodeRunArgs([][]byte{[]byte(`{"input":"why?"}`)}, "ask"); err != nil || a.Command != "ask" {
		t.Errorf("free question: %+v, %v", a, err)
	}
}

func TestToolLabel(t *testing.T) {
	display := func(p string) string { return strings.TrimPrefix(p, "/w/") }
	for _, tc := range []struct{ tool, args, want string }{
		{"read_file", `{"path":"/w/calc.go"}`, "read_file calc.go"},
		{"edit_file", `{"path":"calc.go","old_string":"x"}`, "edit_file calc.go"},
		{"grep", `{"pattern":"func Add"}`, "grep func Add"},
		{"grep", `{"path":".","pattern":"\\.err\\b"}`, `grep \.err\b`},
		{"glob", `{"path":"/w/src","pattern":"**/*_test.go"}`, "glob **/*_test.go"},
		{"exec", `{"command":"go test ./...\nrm -rf /"}`, "exec go test ./..."},
		{"mcp_x_y", `{"n":1}`, "mcp_x_y"},
		{"broken", `{"path":`, "broken"},
		{"update_plan", `{"plan":[{"step":"Read","status":"completed"},{"step":"Fix Add","status":"in_progress"},{"step":"Test","status":"pending"}]}`, "plan 2/3: Fix Add"},
		{"update_plan", `{"plan":[{"step":"Read","status":"completed"},{"step":"Test","status":"pending"}]}`, "plan 2/2: Test"},
		{"update_plan", `{"plan":[{"step":"Read","status":"completed"}]}`, "plan 1/1: done"},
		{"update_plan", `{"plan":[]}`, "update_plan"},
	} {
		if got := toolLabel(tc.tool, json.RawMessage(tc.args), display); got != tc.want {
			t.Errorf("toolLabel(%s, %s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]string{"a/b.go": "go", "x.PY": "python", "t.tsx": "typescriptreact", "Makefile": "", "n.zig": "zig"} {
		if got := languageOf(path); got != want {
			t.Errorf("languageOf(%s) = %q, want %q", path, got, want)
		}
	}
}
