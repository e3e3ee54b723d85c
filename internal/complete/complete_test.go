package complete

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/config"
)

func TestTrim(t *testing.T) {
	cases := []struct {
		name, answer, prefix, suffix string
		lines                        int
		chat                         bool
		want                         string
	}{
		{"plain", "a + b\n", "return ", "\n}\n", 8, false, "a + b"},
		{"rest of the line", "a, b)", "add(", ")\n", 8, false, "a, b"},
		{"runs into the suffix", "x := 1\n\ty := 2\n}\nfunc next() {", "\t", "\n}\n\nfunc other() {}\n", 8, false, "x := 1\n\ty := 2"},
		{"max lines", "1\n2\n3\n4\n", "", "", 2, false, "1\n2"},
		{"chat fence and repeat", "```go\nx := compute()\n```", "\tx := ", "\n", 8, true, "compute()"},
		{"chat cursor mark", "<CURSOR>done", "", "", 8, true, "done"},
		{"nothing", "  \n\n", "", "", 8, false, ""},
	}
	for _, c := range cases {
		got := trim(c.answer, Prompt{Prefix: c.prefix, Suffix: c.suffix}, c.lines, c.chat)
		if got != c.want {
			t.Errorf("%s: trim(%q) = %q, want %q", c.name, c.answer, got, c.want)
		}
	}
}

func TestChoose(t *testing.T) {
	cases := []struct {
		m    config.Config
		fim  string
		want string
	}{
		{config.Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3"}, "auto", "completions/suffix"},
		{config.Config{Provider: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen2.5-coder:1.5b"}, "auto", "generate/suffix"},
		{config.Config{Provider: "ollama", Model: "qwen2.5-coder:1.5b"}, "qwen", "generate/qwen"},
		{config.Config{Provider: "openai", BaseURL: "http://gpu:8000/v1", Model: "Qwen/Qwen2.5-Coder-7B"}, "auto", "completions/qwen"},
		{config.Config{Provider: "openai", BaseURL: "http://gpu:8000/v1", Model: "deepseek-coder-6.7b-base"}, "auto", "completions/deepseek"},
		{config.Config{Provider: "openai", BaseURL: "http://gpu:8000/v1", Model: "bigcode/starcoder2-3b"}, "auto", "completions/starcoder"},
		{config.Config{Provider: "openai", BaseURL: "http://gpu:8000/v1", Model: "codellama:7b-code"}, "auto", "completions/codellama"},
		{config.Config{Provider: "openai", BaseURL: "http://gpu:8000/v1", Model: "mistral"}, "auto", "chat"},
		{config.Config{Provider: "openai", BaseURL: config.DefaultOpenAIURL, Model: "gpt-4.1"}, "auto", "chat"},
		{config.Config{Provider: "anthropic", Model: "claude"}, "auto", "chat"},
		{config.Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1"}, "chat", "chat"},
	}
	for _, c := range cases {
		if got := choose(c.m, c.fim).String(); got != c.want {
			t.Errorf("choose(%s %s %s, %s) = %s, want %s", c.m.Provider, c.m.BaseURL, c.m.Model, c.fim, got, c.want)
		}
	}
}

func TestFIMText(t *testing.T) {
	p := Prompt{Path: "a.go", Language: "go", Prefix: "func f() {\n\treturn ", Suffix: "\n}\n"}
	prompt, suffix, raw, stop := fimText(p, config.FIMQwen)
	if prompt != "<|fim_prefix|>func f() {\n\treturn <|fim_suffix|>\n}\n<|fim_middle|>" || suffix != "" || !raw || !slices.Contains(stop, "<|endoftext|>") {
		t.Errorf("qwen: %q %q %v %v", prompt, suffix, raw, stop)
	}
	prompt, _, _, _ = fimText(p, config.FIMCodeLlama)
	if prompt != "<PRE> func f() {\n\treturn  <SUF>\n}\n <MID>" {
		t.Errorf("codellama: %q", prompt)
	}
	prompt, _, _, _ = fimText(p, config.FIMDeepSeek)
	if !strings.HasPrefix(prompt, "<｜fim▁begin｜>func") || !strings.HasSuffix(prompt, "<｜fim▁hole｜>\n}\n<｜fim▁end｜>") {
		t.Errorf("deepseek: %q", prompt)
	}
	p.Related = []Snippet{{Path: "lib/lib.go", Text: "package lib\nfunc Add(a, b int) int"}}
	prompt, suffix, raw, _ = fimText(p, config.FIMSuffix)
	want := "// Path: lib/lib.go\n// package lib\n// func Add(a, b int) int\n//\n// Path: a.go\nfunc f() {\n\treturn "
	if prompt != want || suffix != p.Suffix || raw {
		t.Errorf("suffix with context:\n%q\nwant\n%q", prompt, want)
	}
}

func TestOutlineAndImports(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/lib\"\n)\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\ntype T struct {\n\tx int\n}\n"
	got := Outline(src)
	want := []string{"package main", "import (", "\t\"fmt\"", "\t\"example.com/m/lib\"", ")", "func Add(a, b int) int", "type T struct"}
	if !slices.Equal(got, want) {
		t.Errorf("outline %q, want %q", got, want)
	}
	refs := imports(src)
	if len(refs) != 2 || refs[1].path != "example.com/m/lib" {
		t.Fatalf("imports %+v", refs)
	}
	if !refs[1].importsFile("/w/cmd", "/w/lib/lib.go") || refs[1].importsFile("/w/cmd", "/w/other/x.go") {
		t.Error("the Go import does not name the package's files alone")
	}
	py := imports("from .util import helper\nimport pkg.mod as m\n")
	if len(py) != 2 || !py[0].importsFile("/w/app", "/w/app/util.py") || !py[1].importsFile("/w/app", "/w/pkg/mod.py") {
		t.Errorf("python imports %+v", py)
	}
	ts := imports("import { x } from './util';\nconst y = require('../lib/y')\n")
	if len(ts) != 2 || !ts[0].importsFile("/w/src", "/w/src/util.ts") || !ts[1].importsFile("/w/src", "/w/lib/y.js") {
		t.Errorf("ts imports %+v", ts)
	}
}

func TestSecretsAndIgnored(t *testing.T) {
	for _, p := range []string{"/w/.env", "/w/.env.local", "/w/cert.pem", "/w/tls.key", "/home/u/.ssh/config", "/w/id_ed25519", "/w/.netrc", "/w/credentials.json"} {
		if !IsSecret(p) {
			t.Errorf("%s is not a secret", p)
		}
	}
	for _, p := range []string{"/w/main.go", "/w/.env.example", "/w/id_test.go", "/w/keys.go"} {
		if IsSecret(p) {
			t.Errorf("%s is a secret", p)
		}
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := NewFilter([]string{root})
	if f.Completes(filepath.Join(root, "build", "gen.go")) || f.Completes(filepath.Join(root, "x.log")) || !f.Completes(filepath.Join(root, "main.go")) {
		t.Error("gitignored files are completed, or tracked ones not")
	}
	if f.Shares("/elsewhere/a.go") || !f.Completes("/elsewhere/a.go") {
		t.Error("a file outside the folders lends context, or cannot be completed")
	}
}

func TestTracker(t *testing.T) {
	tr := NewTracker()
	tr.Changed("z", 1)
	if len(tr.Recent(5)) != 0 {
		t.Error("an edit was recorded before any completion was asked")
	}
	ctx, done := tr.Begin(context.Background(), "a")
	defer done()
	other, done2 := tr.Begin(context.Background(), "b")
	defer done2()
	tr.Changed("a", 3)
	tr.Changed("a", 3)
	tr.Changed("b", 7)
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), ErrSuperseded) {
		t.Errorf("cause %v", context.Cause(ctx))
	}
	<-other.Done()
	got := tr.Recent(5)
	if len(got) != 2 || got[0].Doc != "b" || got[1].Doc != "a" || got[1].Line != 3 {
		t.Errorf("recent %+v", got)
	}
	for i := range 2 * historySize {
		tr.Changed("c", i)
	}
	if n := len(tr.Recent(1000)); n != historySize {
		t.Errorf("history holds %d edits, want %d", n, historySize)
	}
}
