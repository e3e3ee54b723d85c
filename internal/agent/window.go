package agent

import (
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// contextWindows are the context windows (input tokens) of common
// models, matched by prefix of the model name (lower case, after any
// "vendor/" part of OpenRouter-style names). The first match wins, so
// longer prefixes come before shorter ones. The contextWindow setting
// overrides this table.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	// Anthropic
	{"claude-sonnet-4", 200_000}, {"claude-opus-4", 200_000}, {"claude-haiku-4", 200_000},
	{"claude-3", 200_000}, {"claude", 200_000},
	// OpenAI
	{"gpt-4.1", 1_047_576}, {"gpt-4o", 128_000}, {"gpt-4-turbo", 128_000}, {"gpt-4", 8_192},
	{"gpt-5", 400_000}, {"gpt-3.5-turbo", 16_385}, {"o1", 200_000}, {"o3", 200_000}, {"o4-mini", 200_000},
	// Google, through OpenAI-compatible endpoints
	{"gemini-2", 1_048_576}, {"gemini-1.5", 1_048_576},
	// Local models (Ollama, llama.cpp, vLLM): the models' own windows. An
	// Ollama server may run them with a smaller num_ctx; set contextWindow
	// to that.
	{"qwen2.5-coder", 32_768}, {"qwen2.5", 32_768}, {"qwen3-coder", 262_144}, {"qwen3", 40_960},
	{"llama3.1", 131_072}, {"llama3.2", 131_072}, {"llama3.3", 131_072}, {"llama3", 8_192},
	{"deepseek-coder-v2", 163_840}, {"deepseek", 128_000},
	{"codestral", 32_768}, {"devstral", 131_072}, {"mistral", 32_768}, {"mixtral", 32_768},
	{"gemma3", 131_072}, {"gemma2", 8_192}, {"phi4", 16_384}, {"gpt-oss", 131_072},
}

// defaultContextWindow is assumed for a model the table does not know:
// small enough that a local model's run does not overflow before it
// compacts; hosted models are all in the table.
const defaultContextWindow = 32_768

// ContextWindow returns the number of input tokens cfg's model accepts:
// the contextWindow setting, else the table's entry for the model, else
// defaultContextWindow.
func ContextWindow(cfg config.Config) int {
	if cfg.ContextWindow > 0 {
		return cfg.ContextWindow
	}
	m := strings.ToLower(cfg.Model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) {
			return w.tokens
		}
	}
	return defaultContextWindow
}
