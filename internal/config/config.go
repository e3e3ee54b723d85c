package config

import "time"

// Command is a user-invokable agent command (built-in or custom).
type Command struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"` // template: ${file} ${selection} ${diagnostics} ${language} ${input}
	// ReadOnly commands answer only: the model is offered read-only tools.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// Config is the agent's configuration after merging every source (see
// Load for the precedence). The zero value of a field means "not
// set here" while merging, and "the default" once resolved.
type Config struct {
	Provider       string    `json:"provider,omitempty"` // "openai" or "anthropic"
	Model          string    `json:"model,omitempty"`
	BaseURL        string    `json:"baseUrl,omitempty"`
	APIKey         string    `json:"-"` // never serialised
	MaxSteps       int       `json:"maxSteps,omitempty"`
	CustomCommands []Command `json:"customCommands,omitempty"`
	// MaxTokens bounds one model answer (Anthropic requires a bound;
	// default 8192). 0 leaves OpenAI-compatible servers their default.
	MaxTokens int `json:"maxTokens,omitempty"`
	// DisableStreaming asks for whole answers instead of SSE, for servers
	// whose streamed tool calls are broken.
	DisableStreaming bool `json:"disableStreaming,omitempty"`
	// MaxRetries is how often the SDK retries 429/5xx and connection
	// failures, with backoff; 0 means 2, negative means never.
	MaxRetries int `json:"maxRetries,omitempty"`
	// ModelIdleTimeout is how many seconds the model may send nothing
	// (no status line, no header, no byte of the answer) before the step
	// fails; 0 means DefaultModelIdleTimeout. Without it a server that
	// accepts a request and then stalls would hang the run for ever.
	ModelIdleTimeout int `json:"modelIdleTimeout,omitempty"`
	// QuestionTimeout is how many seconds a question to the user (an
	// exec approval, an edit's review, the trust question) stays open;
	// 0 means DefaultQuestionTimeout. Past it the question is withdrawn
	// and counts as no: a question the editor never answers (a dismissal
	// some clients do not report) must not hold a run for ever.
	QuestionTimeout int `json:"questionTimeout,omitempty"`
	// ContextWindow is the model's context window in tokens; 0 looks the
	// model up in a table of common models (see ContextWindow). Runs
	// compact their conversation before a request would pass 80% of it.
	ContextWindow int `json:"contextWindow,omitempty"`
	// Tools tune exec and web_fetch (see ToolSettings).
	Tools ToolSettings `json:"tools,omitzero"`
	// Mode is what the agent may touch: "auto" (default), "project" or
	// "internal" (guard.ParseMode). In the editor it is the guard's, read
	// from the primary folder's configuration (lsp/run_settings.go).
	Mode string `json:"mode,omitempty"`
	// Review is when the user reviews the agent's changes: "pending"
	// (the default: the run works in its own copy-on-write workspace,
	// never waits, and the user keeps or discards its change set hunk by
	// hunk) or "before" (each change is asked before it lands, and a
	// command that writes asks first). See docs/workspace.md.
	Review string `json:"review,omitempty"`
	// MaxDiffMB is the size, in MiB, over which a file in a run's change
	// set is one whole-file item, compared by size and hash and never
	// read whole (default 8). Only the user's own config.json sets it
	// (UserMaxDiffMB): a project must not make cb-ls read larger files.
	MaxDiffMB int `json:"maxDiffMB,omitempty"`
	// LanguageServers are started by cb-ls itself to answer the language
	// tools where no editor does, by name (see LanguageServer).
	LanguageServers map[string]LanguageServer `json:"languageServers,omitempty"`
	// RunViewServers says which language servers check a run's pending
	// edits in the editor, whose own servers see the user's buffers
	// only: "auto" (the default: the languageServers setting, and
	// gopls, pyright and typescript-language-server where they are on
	// PATH), "configured" (the setting only) or "off" (docs/context.md).
	RunViewServers string `json:"runViewServers,omitempty"`
	// InlineCompletion configures completions at the cursor (inline.go).
	InlineCompletion InlineCompletion `json:"inlineCompletion,omitzero"`
}

// Values of RunViewServers.
const (
	RunViewServersAuto       = "auto"
	RunViewServersConfigured = "configured"
	RunViewServersOff        = "off"
)

// Values of Review.
const (
	ReviewPending = "pending"
	ReviewBefore  = "before"
)

// ReviewMode returns the review setting, its default filled in.
func (c Config) ReviewMode() string {
	if c.Review == "" {
		return ReviewPending
	}
	return c.Review
}

// DefaultModelIdleTimeout is the idle limit, in seconds, when
// modelIdleTimeout is unset: long enough for a local model to read a
// long prompt before its first token.
const DefaultModelIdleTimeout = 300

// MaxModelIdleTimeout is the largest modelIdleTimeout accepted (a day).
const MaxModelIdleTimeout = 24 * 60 * 60

// ModelIdle returns the idle limit ModelIdleTimeout stands for.
func (c Config) ModelIdle() time.Duration {
	if c.ModelIdleTimeout <= 0 {
		return DefaultModelIdleTimeout * time.Second
	}
	return time.Duration(c.ModelIdleTimeout) * time.Second
}

// DefaultQuestionTimeout is the question bound, in seconds, when
// questionTimeout is unset: long enough to read a diff and think.
const DefaultQuestionTimeout = 15 * 60

// MaxQuestionTimeout is the largest questionTimeout accepted (a day).
const MaxQuestionTimeout = 24 * 60 * 60

// QuestionWait returns the bound QuestionTimeout stands for.
func (c Config) QuestionWait() time.Duration {
	if c.QuestionTimeout <= 0 {
		return DefaultQuestionTimeout * time.Second
	}
	return time.Duration(c.QuestionTimeout) * time.Second
}

// Retries returns the SDK retry count MaxRetries stands for.
func (c Config) Retries() int {
	switch {
	case c.MaxRetries < 0:
		return 0
	case c.MaxRetries == 0:
		return 2
	}
	return c.MaxRetries
}
