package agent

// Command is a user-invokable agent command (built-in or custom).
type Command struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"` // template: ${file} ${selection} ${diagnostics} ${language} ${input}
}

// Config is the agent's configuration after merging every source.
type Config struct {
	Provider       string    `json:"provider,omitempty"` // "openai" or "anthropic"
	Model          string    `json:"model,omitempty"`
	BaseURL        string    `json:"baseUrl,omitempty"`
	APIKey         string    `json:"-"` // never serialised
	MaxSteps       int       `json:"maxSteps,omitempty"`
	CustomCommands []Command `json:"customCommands,omitempty"`
}
