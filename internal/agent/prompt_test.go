package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/google/go-cmp/cmp"
)

func TestCommandsListBuiltinsThenCustom(t *testing.T) {
	cfg := config.Config{CustomCommands: []config.Command{
		{ID: "tests", Title: "Agent: Write tests", Prompt: "Write tests for ${selection}"},
		{ID: "fix", Prompt: "Fix it my way: ${input}"},
		{ID: "doc", Prompt: "Document ${file}"},
	}}
	var got [][2]string
	for _, c := range config.Commands(cfg) {
		got = append(got, [2]string{c.ID, c.Title})
	}
	want := [][2]string{{"fix", "Agent: Fix This"}, {"explain", "Agent: Explain This"}, {"ask", "Agent: Ask…"},
		{"tests", "Agent: Write tests"}, {"doc", "Agent: doc"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// No custom command takes a built-in's id (config/commandcheck.go):
	// one built in code is left out, not a replacement.
	if c, _ := config.FindCommand(cfg, "fix"); c.Prompt == "Fix it my way: ${input}" {
		t.Errorf("a custom fix replaced the built-in prompt: %+v", c)
	}
	if c, ok := config.FindCommand(config.Config{}, "explain"); !ok || !c.ReadOnly {
		t.Errorf("explain is not read-only: %+v", c)
	}
}

func TestExpand(t *testing.T) {
	task := Task{Path: "/p/pkg/calc.go", Language: "go", Selection: "a - b", Input: "  use +  ",
		Diagnostics: []Diagnostic{{Line: 3, Column: 9, Severity: "error", Source: "compiler", Code: "E1", Message: "bad\nthing"}}}
	cmd := config.Command{Prompt: "In ${file} (${language}):\n${selection}\n${input}\n${diagnostics}\n${unknown}"}
	got := Expand(cmd, task, "/p")
	want := "In pkg/calc.go (go):\na - b\nuse +\n- pkg/calc.go:3:9 error [compiler E1]: bad thing\n${unknown}"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Lines holding only empty variables disappear.
	if got := Expand(config.Command{Prompt: "Fix.\n${input}\nDone."}, Task{}, ""); got != "Fix.\nDone." {
		t.Errorf("empty input line kept: %q", got)
	}
}

func TestFixPromptCarriesContext(t *testing.T) {
	src := "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	task := Task{Command: "fix", Path: "/p/calc.go", Language: "go", Content: []byte(src), StartLine: 5, EndLine: 5,
		Selection: "\treturn a - b", Input: "it should add",
		Diagnostics: []Diagnostic{{Line: 5, Severity: "warning", Source: "staticcheck", Message: "suspicious"}, {Line: 5, Source: "gopls", Message: "other"}}}
	cmd, _ := config.FindCommand(config.Config{}, "fix")
	p := TaskPrompt(cmd, task, "/p")
	for _, s := range []string{"calc.go", "it should add", "The whole file", "     5\t\treturn a - b", "staticcheck", "gopls", "lines 5-5 selected", "```go"} {
		if !strings.Contains(p, s) {
			t.Errorf("fix prompt lacks %q:\n%s", s, p)
		}
	}
}

func TestBigFileSendsTheRegion(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	task := Task{Path: "/p/big.txt", Content: []byte(b.String()), StartLine: 500, EndLine: 502, Selection: "line 500"}
	p := TaskPrompt(config.Command{Prompt: "x"}, task, "/p")
	if !strings.Contains(p, "Lines 460-542") || !strings.Contains(p, "   460\tline 460") || strings.Contains(p, "\tline 459\n") || strings.Contains(p, "\tline 543\n") {
		t.Errorf("big file excerpt wrong:\n%s", p[:min(len(p), 400)])
	}
}

func TestFenceOutgrowsBackticks(t *testing.T) {
	if got := fenceFor("a ```` b"); got != "`````" {
		t.Errorf("fence %q", got)
	}
}

// TestSystemPromptSaysEachRuleOnce: what belongs to one tool is in its
// description, not in the system prompt too: exec's access (which
// depends on the run: its layer, the sandbox, the approval setting),
// edit_file's exact match, write_file for new files.
func TestSystemPromptSaysEachRuleOnce(t *testing.T) {
	p := SystemPrompt("/w", false, Environment{})
	for _, want := range []string{"Read a file (read_file) before you edit it", "do not retry it", "Line numbers shown next to code are not part of the file"} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, p)
		}
	}
	for _, tool := range []string{"write: true", "exec", "old_string", "write_file"} {
		if strings.Contains(p, tool) {
			t.Errorf("system prompt states a rule of one tool (%q):\n%s", tool, p)
		}
	}
	if p := SystemPrompt("/w", true, Environment{}); !strings.Contains(p, "Answer only") || strings.Contains(p, "before you edit") {
		t.Errorf("read-only prompt:\n%s", p)
	}
}
