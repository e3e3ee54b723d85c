package complete

import (
	"net/url"
	"path"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// tokens is one model family's fill-in-the-middle format: the prompt
// is pre + prefix + suf + suffix + mid, and the model writes the middle.
type tokens struct {
	pre, suf, mid string
	stop          []string // the family's end and control tokens
}

// fimTokens are the formats of the common coder models.
var fimTokens = map[string]tokens{
	// Qwen2.5-Coder, CodeGemma.
	config.FIMQwen: {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>",
		[]string{"<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|im_end|>"}},
	// StarCoder, StarCoder2, SantaCoder.
	config.FIMStarCoder: {"<fim_prefix>", "<fim_suffix>", "<fim_middle>",
		[]string{"<|endoftext|>", "<fim_prefix>", "<file_sep>", "<fim_middle>"}},
	// Code Llama (its infilling models: code, not instruct).
	config.FIMCodeLlama: {"<PRE> ", " <SUF>", " <MID>",
		[]string{"<EOT>", "<PRE>", "<SUF>", "<MID>"}},
	// DeepSeek Coder.
	config.FIMDeepSeek: {"<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>",
		[]string{"<｜end▁of▁sentence｜>", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<|EOT|>"}},
}

// wire is how a completion reaches the model.
type wire int

const (
	wireChat        wire = iota // chat completions / messages through the agent's providers
	wireCompletions             // OpenAI-compatible POST …/completions
	wireGenerate                // Ollama's POST /api/generate
)

func (w wire) String() string {
	return [...]string{"chat", "completions", "generate"}[w]
}

// plan is the wire and, for the completion wires, the format: the
// endpoint's suffix parameter (fim "suffix") or a family's tokens.
type plan struct {
	wire   wire
	format string // config.FIMSuffix or a key of fimTokens; "" for chat
}

func (p plan) String() string {
	if p.wire == wireChat {
		return "chat"
	}
	return p.wire.String() + "/" + p.format
}

// choose picks the plan for the resolved completion model m and the fim
// setting. "auto": Anthropic and OpenAI itself answer chat; Ollama
// (provider ollama, or its port) takes the suffix parameter, which its
// model templates turn into the model's own tokens; another
// OpenAI-compatible server gets the tokens of the model's family by
// name, or chat when the name says nothing.
func choose(m config.Config, fim string) plan {
	generate := m.Provider == config.ProviderOllama
	completion := wireCompletions
	if generate {
		completion = wireGenerate
	}
	switch fim {
	case config.FIMChat:
		return plan{wire: wireChat}
	case config.FIMSuffix:
		return plan{wire: completion, format: config.FIMSuffix}
	case config.FIMQwen, config.FIMStarCoder, config.FIMCodeLlama, config.FIMDeepSeek:
		return plan{wire: completion, format: fim}
	}
	switch {
	case m.Provider == "anthropic":
		return plan{wire: wireChat}
	case generate || config.IsOllamaURL(m.BaseURL):
		return plan{wire: completion, format: config.FIMSuffix}
	case isOpenAIHost(m.BaseURL):
		return plan{wire: wireChat}
	}
	if f := familyOf(m.Model); f != "" {
		return plan{wire: completion, format: f}
	}
	return plan{wire: wireChat}
}

func isOpenAIHost(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Hostname() == "api.openai.com"
}

// familyOf names the FIM format of a model by its name, "" if unknown.
func familyOf(model string) string {
	m := strings.ToLower(path.Base(model))
	switch {
	case strings.Contains(m, "qwen") && strings.Contains(m, "coder"), strings.Contains(m, "codegemma"):
		return config.FIMQwen
	case strings.Contains(m, "starcoder"), strings.Contains(m, "santacoder"):
		return config.FIMStarCoder
	case strings.Contains(m, "codellama"), strings.Contains(m, "code-llama"):
		return config.FIMCodeLlama
	case strings.Contains(m, "deepseek") && strings.Contains(m, "coder"):
		return config.FIMDeepSeek
	}
	return ""
}

// fimText renders p for a completion wire: the prompt (context as
// comments of the file's language, then the prefix) and the suffix,
// either apart (format suffix) or in the family's tokens in the prompt
// alone (raw). stop lists the family's stop tokens.
func fimText(p Prompt, format string) (prompt, suffix string, raw bool, stop []string) {
	head := contextComment(p)
	if format == config.FIMSuffix {
		return head + p.Prefix, p.Suffix, false, nil
	}
	t := fimTokens[format]
	return t.pre + head + p.Prefix + t.suf + p.Suffix + t.mid, "", true, t.stop
}

// contextComment is the prompt's context written as line comments of
// the file's language, so a completion model reads it as part of the
// file: each related file under "Path: …", the recent edits, and the
// file's outline above the window.
func contextComment(p Prompt) string {
	if len(p.Related) == 0 && len(p.Edits) == 0 && len(p.Outline) == 0 {
		return ""
	}
	c := commentOf(p.Language, p.Path)
	var b strings.Builder
	line := func(s string) {
		b.WriteString(c)
		if s != "" {
			b.WriteByte(' ')
			b.WriteString(s)
		}
		b.WriteByte('\n')
	}
	for _, s := range p.Related {
		line("Path: " + s.Path)
		for l := range strings.Lines(strings.TrimRight(s.Text, "\n")) {
			line(strings.TrimRight(l, "\r\n"))
		}
		line("")
	}
	if len(p.Edits) > 0 {
		line("Recent edits:")
		for _, e := range p.Edits {
			line(e)
		}
		line("")
	}
	line("Path: " + p.Path)
	if len(p.Outline) > 0 {
		for _, o := range p.Outline {
			line(o)
		}
		line("…")
	}
	return b.String()
}

// commentOf returns the line-comment marker of a language, by its LSP
// language id or, failing that, the file's extension.
func commentOf(lang, p string) string {
	switch lang {
	case "python", "ruby", "shellscript", "sh", "bash", "perl", "r", "yaml", "toml", "elixir",
		"dockerfile", "makefile", "powershell", "nim", "julia", "coffeescript", "crystal":
		return "#"
	case "lua", "sql", "haskell", "elm", "ada":
		return "--"
	case "go", "c", "cpp", "java", "javascript", "typescript", "javascriptreact", "typescriptreact",
		"rust", "swift", "kotlin", "scala", "csharp", "php", "dart", "zig", "groovy", "objective-c", "proto":
		return "//"
	}
	switch path.Ext(p) {
	case ".py", ".rb", ".sh", ".bash", ".pl", ".r", ".yml", ".yaml", ".toml", ".ex", ".exs", ".jl", ".nim", ".ps1":
		return "#"
	case ".lua", ".sql", ".hs", ".elm":
		return "--"
	}
	return "//"
}

// chatSystem asks a chat model for the insertion only.
const chatSystem = "You complete code at the cursor, marked <CURSOR>. Reply with only the text to insert there: " +
	"no explanation, no Markdown fence, nothing that is already before or after the cursor. " +
	"If nothing belongs there, reply with nothing."

// cursorMark is where the chat prompt puts the cursor.
const cursorMark = "<CURSOR>"

// chatMessage renders p as one user message.
func chatMessage(p Prompt) string {
	var b strings.Builder
	for _, s := range p.Related {
		b.WriteString("Related file " + s.Path + " (" + s.Why + "):\n")
		b.WriteString(strings.TrimRight(s.Text, "\n"))
		b.WriteString("\n\n")
	}
	if len(p.Edits) > 0 {
		b.WriteString("The user's last edits:\n")
		for _, e := range p.Edits {
			b.WriteString(e + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("File " + p.Path + " (" + p.Language + ")")
	if len(p.Outline) > 0 {
		b.WriteString(", its declarations above the excerpt:\n")
		b.WriteString(strings.Join(p.Outline, "\n"))
		b.WriteString("\n…\n")
	} else {
		b.WriteString(":\n")
	}
	b.WriteString(p.Prefix + cursorMark + p.Suffix)
	return b.String()
}
