package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// InlineCompletion configures completions at the cursor
// (textDocument/inlineCompletion, internal/complete): which model
// answers them and how. It is read from every source like the rest of
// Config; a project's needs the user's trust (it names an endpoint the
// user's code would be sent to), so an untrusted project's is ignored
// whole.
type InlineCompletion struct {
	// Enabled turns completions on. Off unless set: each completion is a
	// model request, which costs money on a paid API.
	Enabled *bool `json:"enabled,omitempty"`
	// Provider is "openai" (OpenAI-compatible: /v1/completions or chat
	// completions), "anthropic" (Messages, chat only) or "ollama"
	// (Ollama's own /api/generate). Unset: the agent's provider.
	Provider string `json:"provider,omitempty"`
	// BaseURL is the endpoint; unset, the agent's (for the same
	// provider) or the provider's default.
	BaseURL string `json:"baseUrl,omitempty"`
	// Model is the model; unset, the agent's (for the same provider).
	Model string `json:"model,omitempty"`
	// FIM is how the prompt is put to the model: "auto" (the default:
	// by provider, endpoint and model name), "suffix" (the endpoint's
	// own suffix parameter), "qwen", "starcoder", "codellama",
	// "deepseek" (that family's fill-in-the-middle tokens in a raw
	// prompt) or "chat" (a chat request asking for the insertion only).
	FIM string `json:"fim,omitempty"`
	// DebounceMs waits this long after a request before asking the
	// model, answering at once if a keystroke supersedes it meanwhile;
	// 0 (the default) asks at once, for clients that debounce
	// themselves (VS Code, Neovim).
	DebounceMs int `json:"debounceMs,omitempty"`
	// MaxLines bounds a completion's lines; 0 means DefaultCompletionLines.
	MaxLines int `json:"maxLines,omitempty"`
	// NextEdit turns next-edit suggestions on: after the user pauses
	// (DebounceMs, at least MinNextEditPause), the same model is asked
	// for the one edit that comes next near the last one. Unset, it
	// follows Enabled: whoever accepted a model request at every pause
	// for completions gets one more per pause for the next edit; false
	// keeps completions without it, true asks for next edits alone.
	NextEdit *bool `json:"nextEdit,omitempty"`
}

// Values of InlineCompletion.FIM.
const (
	FIMAuto      = "auto"
	FIMSuffix    = "suffix"
	FIMQwen      = "qwen"
	FIMStarCoder = "starcoder"
	FIMCodeLlama = "codellama"
	FIMDeepSeek  = "deepseek"
	FIMChat      = "chat"
)

// ProviderOllama is the completion provider that speaks Ollama's own
// /api/generate (the agent itself talks to Ollama as "openai").
const ProviderOllama = "ollama"

// DefaultCompletionLines is a completion's line bound when maxLines is
// unset: a block, not a file.
const DefaultCompletionLines = 8

// Bounds of the completion settings.
const (
	MaxCompletionLines    = 200
	MaxCompletionDebounce = 2000
)

// DefaultOllamaNativeURL is Ollama's own API (no /v1).
const DefaultOllamaNativeURL = "http://127.0.0.1:11434"

// On reports whether completions are enabled.
func (ic InlineCompletion) On() bool { return ic.Enabled != nil && *ic.Enabled }

// NextEditOn reports whether next-edit suggestions are on: NextEdit
// when set, else Enabled.
func (ic InlineCompletion) NextEditOn() bool {
	if ic.NextEdit != nil {
		return *ic.NextEdit
	}
	return ic.On()
}

// MinNextEditPause is the shortest pause after an edit before a next
// edit is asked: editors debounce their completion requests, never the
// changes a next edit follows, so DebounceMs's default 0 cannot mean
// "at every keystroke" here.
const MinNextEditPause = 250

// NextEditPause is how long, in milliseconds, the user pauses before a
// next edit is asked: DebounceMs, at least MinNextEditPause.
func (ic InlineCompletion) NextEditPause() int { return max(ic.DebounceMs, MinNextEditPause) }

// Lines returns the line bound MaxLines stands for.
func (ic InlineCompletion) Lines() int {
	if ic.MaxLines <= 0 {
		return DefaultCompletionLines
	}
	return ic.MaxLines
}

// Format returns the FIM setting, "auto" when unset.
func (ic InlineCompletion) Format() string {
	if ic.FIM == "" {
		return FIMAuto
	}
	return ic.FIM
}

func (ic InlineCompletion) validate() error {
	switch ic.Provider {
	case "", "openai", "anthropic", ProviderOllama:
	default:
		return fmt.Errorf("inlineCompletion.provider %q: want openai, anthropic or ollama", ic.Provider)
	}
	switch ic.FIM {
	case "", FIMAuto, FIMSuffix, FIMQwen, FIMStarCoder, FIMCodeLlama, FIMDeepSeek, FIMChat:
	default:
		return fmt.Errorf("inlineCompletion.fim %q: want auto, suffix, qwen, starcoder, codellama, deepseek or chat", ic.FIM)
	}
	if ic.Provider == "anthropic" && ic.FIM != "" && ic.FIM != FIMAuto && ic.FIM != FIMChat {
		return fmt.Errorf("inlineCompletion.fim %q: Anthropic answers chat only", ic.FIM)
	}
	if ic.DebounceMs < 0 || ic.DebounceMs > MaxCompletionDebounce {
		return fmt.Errorf("inlineCompletion.debounceMs %d: want 0 to %d", ic.DebounceMs, MaxCompletionDebounce)
	}
	if ic.MaxLines < 0 || ic.MaxLines > MaxCompletionLines {
		return fmt.Errorf("inlineCompletion.maxLines %d: want 1 to %d (0 or unset: %d)", ic.MaxLines, MaxCompletionLines, DefaultCompletionLines)
	}
	return nil
}

// CompletionModel returns the model completions ask, as a resolved
// Config (provider, base URL, model, key): inlineCompletion's provider,
// baseUrl and model over the agent's. c must be resolved (as Load
// returns it). The key is the agent's when the provider is the agent's,
// else the provider's environment variable: it goes only to an endpoint
// from the user's own sources or a trusted project, as the agent's does.
// Completions are never retried: by the time a retry answered, the user
// typed on.
func (c Config) CompletionModel() Config { return c.completionModel(os.Getenv) }

func (c Config) completionModel(getenv func(string) string) Config {
	ic := c.InlineCompletion
	m := Config{ModelIdleTimeout: c.ModelIdleTimeout, MaxRetries: -1, DisableStreaming: true}
	switch {
	case ic.Provider == ProviderOllama:
		m.Provider = ProviderOllama
		m.BaseURL = ic.BaseURL
		agentOllama := c.Provider == "openai" && IsOllamaURL(c.BaseURL)
		if m.BaseURL == "" {
			m.BaseURL = DefaultOllamaNativeURL
			if agentOllama {
				m.BaseURL = c.BaseURL
			}
		}
		m.BaseURL = strings.TrimSuffix(strings.TrimSuffix(m.BaseURL, "/"), "/v1")
		m.Model = ic.Model
		if m.Model == "" {
			m.Model = defaultOllamaModel
			if agentOllama {
				m.Model = c.Model
			}
		}
		return m
	case ic.Provider == "" || ic.Provider == c.Provider:
		m.Provider, m.BaseURL, m.Model, m.APIKey = c.Provider, c.BaseURL, c.Model, c.APIKey
		if ic.BaseURL != "" {
			m.BaseURL = ic.BaseURL
		}
		if ic.Model != "" {
			m.Model = ic.Model
		}
		return m
	}
	m.Provider, m.BaseURL, m.Model = ic.Provider, ic.BaseURL, ic.Model
	r := m.resolve(getenv)
	r.MaxSteps = 0
	return r
}

// IsOllamaURL reports whether u looks like an Ollama server: its
// default port, 11434.
func IsOllamaURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Port() == "11434"
}
