package config

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Defaults. Model names age: every one
// can be overridden by CB_MODEL, a config file or the editor's settings.
const (
	DefaultMaxSteps     = 30
	DefaultOllamaURL    = "http://127.0.0.1:11434/v1"
	DefaultOpenAIURL    = "https://api.openai.com/v1"
	DefaultAnthropicURL = "https://api.anthropic.com"
	defaultOllamaModel  = "qwen2.5-coder:7b"
	defaultOpenAIModel  = "gpt-4.1"
	defaultClaudeModel  = "claude-sonnet-4-5"
)

// MinContextWindow is the smallest contextWindow setting accepted: the
// system prompt and the tools alone take a few thousand tokens.
const MinContextWindow = 2048

// ProjectConfigFile is the project's configuration, relative to its root.
const ProjectConfigFile = ".catbuddy/config.json"

// LoadOptions say what to load.
type LoadOptions struct {
	// Root is the project ("" for none).
	Root string
	// Over are the user's own settings above the files, in order (later
	// wins): command-line flags, or the editor's settings.
	Over []Config
	// TrustProject trusts the project for this load (cb-ls run
	// --trust-project); otherwise the user's trust store decides.
	TrustProject bool
}

// Loaded is a resolved configuration and what the project could not set.
type Loaded struct {
	Config
	// Trusted is whether the project's settings all applied.
	Trusted bool
	// Ignored lists the project's settings that did not apply.
	Ignored []Ignored
}

// Load merges every configuration source for the project and resolves
// defaults. Precedence, highest first:
//
//  1. o.Over: command-line flags, or the editor's initializationOptions /
//     workspace/configuration / didChangeConfiguration settings;
//  2. the environment: CB_PROVIDER, CB_MODEL, CB_BASE_URL, CB_MAX_STEPS;
//  3. <root>/.catbuddy/config.json: its harmless settings, and the rest
//     only when the project is trusted (see splitProject);
//  4. the user's config.json in UserDir;
//  5. defaults (see resolve).
//
// A missing file is fine; a malformed one is an error naming it.
func Load(o LoadOptions) (Loaded, error) {
	return load(o, os.Getenv, userConfigFile(os.Getenv), DefaultTrustStore())
}

// LoadConfig is Load without the report: the configuration for root with
// the user's settings over.
func LoadConfig(root string, over ...Config) (Config, error) {
	l, err := Load(LoadOptions{Root: root, Over: over})
	return l.Config, err
}

func load(o LoadOptions, getenv func(string) string, userFile string, store TrustStore) (Loaded, error) {
	var out Loaded
	var cfg Config
	if userFile != "" {
		user, _, err := readConfigFile(userFile, true)
		if err != nil {
			return out, err
		}
		cfg = Merge(cfg, user)
	}
	if o.Root != "" {
		proj, invalid, err := readConfigFile(filepath.Join(o.Root, filepath.FromSlash(ProjectConfigFile)), false)
		if err != nil {
			return out, err
		}
		out.Trusted = o.TrustProject || projectTrusted(o.Root, store)
		var applied Config
		var grants []Ignored
		proj.Tools.Exec, grants = proj.Tools.Exec.refusalsOnly()
		applied, out.Ignored = splitProject(proj, cfg, out.Trusted)
		out.Ignored = append(append(invalid, grants...), out.Ignored...)
		cfg = Merge(cfg, applied)
	}
	env, err := envConfig(getenv)
	if err != nil {
		return out, err
	}
	cfg = Merge(cfg, env)
	for _, over := range o.Over {
		if err := over.validate(); err != nil {
			return out, fmt.Errorf("settings: %w", err)
		}
		cfg = Merge(cfg, over)
	}
	out.Config = cfg.resolve(getenv)
	return out, nil
}

// projectTrusted asks the store about the project's current config. A
// store that cannot be read trusts nothing (and says so).
func projectTrusted(root string, store TrustStore) bool {
	ok, err := store.TrustedRoot(root)
	if err != nil {
		slog.Warn("project trust", "error", err)
	}
	return ok
}

// userConfigFile returns the user's config.json (see UserDir).
func userConfigFile(getenv func(string) string) string {
	dir := UserDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.json")
}

// readConfigFile reads one config file. Keys are accepted only from the
// user's own file: a project file is usually committed, and a key in it
// would leak to everyone who clones the project. An invalid custom
// command is an error in the user's file (edited by hand, like a
// misspelt key) and ignored, reported, in a project's (whose other
// settings still apply).
func readConfigFile(path string, keyAllowed bool) (Config, []Ignored, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil, nil
	}
	if err != nil {
		return Config{}, nil, fmt.Errorf("config %s: %w", path, err)
	}
	s, err := ParseSettings(data)
	if err != nil {
		return Config{}, nil, fmt.Errorf("config %s: %w", path, err)
	}
	// A misspelt key in a file the user edits by hand must not vanish.
	if len(s.Unknown) > 0 {
		return Config{}, nil, fmt.Errorf("config %s: unknown key(s) %s", path, strings.Join(s.Unknown, ", "))
	}
	if len(s.Invalid) > 0 && keyAllowed {
		return Config{}, nil, fmt.Errorf("config %s: %s", path, s.Invalid[0])
	}
	cfg := s.Config
	if err := cfg.validate(); err != nil {
		return Config{}, nil, fmt.Errorf("config %s: %w", path, err)
	}
	if !keyAllowed {
		if cfg.APIKey != "" {
			slog.Warn("ignoring apiKey in a project config file; use OPENAI_API_KEY / ANTHROPIC_API_KEY or your user config", "file", path)
			cfg.APIKey = ""
		}
	}
	return cfg, s.Invalid, nil
}

func envConfig(getenv func(string) string) (Config, error) {
	cfg := Config{
		Provider: strings.TrimSpace(getenv("CB_PROVIDER")),
		Model:    strings.TrimSpace(getenv("CB_MODEL")),
		BaseURL:  strings.TrimSpace(getenv("CB_BASE_URL")),
	}
	if s := strings.TrimSpace(getenv("CB_MAX_STEPS")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return Config{}, fmt.Errorf("CB_MAX_STEPS=%q: want a positive number", s)
		}
		cfg.MaxSteps = n
	}
	if err := cfg.validate(); err != nil {
		return Config{}, fmt.Errorf("environment: %w", err)
	}
	return cfg, nil
}

func (c Config) validate() error {
	switch c.Provider {
	case "", "openai", "anthropic":
	default:
		return fmt.Errorf("unknown provider %q (want openai or anthropic)", c.Provider)
	}
	if c.Mode != "" {
		if _, err := guard.ParseMode(c.Mode); err != nil {
			return fmt.Errorf("mode: %w", err)
		}
	}
	switch c.Review {
	case "", ReviewPending, ReviewBefore:
	default:
		return fmt.Errorf("review %q: want pending or before", c.Review)
	}
	if c.MaxDiffMB < 0 || c.MaxDiffMB > MaxMaxDiffMB {
		return fmt.Errorf("maxDiffMB %d: want a number of MiB from 1 to %d (0 or unset: 8)", c.MaxDiffMB, MaxMaxDiffMB)
	}
	switch c.RunViewServers {
	case "", RunViewServersAuto, RunViewServersConfigured, RunViewServersOff:
	default:
		return fmt.Errorf("runViewServers %q: want auto, configured or off", c.RunViewServers)
	}
	if c.MaxSteps < 0 {
		return fmt.Errorf("maxSteps %d: want a positive number", c.MaxSteps)
	}
	if c.ContextWindow < 0 || c.ContextWindow > 0 && c.ContextWindow < MinContextWindow {
		return fmt.Errorf("contextWindow %d: want at least %d tokens", c.ContextWindow, MinContextWindow)
	}
	if c.ModelIdleTimeout < 0 || c.ModelIdleTimeout > MaxModelIdleTimeout {
		return fmt.Errorf("modelIdleTimeout %d: want a number of seconds from 1 to %d (0 or unset: %d)", c.ModelIdleTimeout, MaxModelIdleTimeout, DefaultModelIdleTimeout)
	}
	if c.QuestionTimeout < 0 || c.QuestionTimeout > MaxQuestionTimeout {
		return fmt.Errorf("questionTimeout %d: want a number of seconds from 1 to %d (0 or unset: %d)", c.QuestionTimeout, MaxQuestionTimeout, DefaultQuestionTimeout)
	}
	if c.Tools.ExecTimeout < 0 || c.Tools.ExecMaxTimeout < 0 {
		return fmt.Errorf("tools.execTimeout / tools.execMaxTimeout: want a positive number of seconds")
	}
	if err := c.Tools.Exec.validate(); err != nil {
		return err
	}
	if err := c.InlineCompletion.validate(); err != nil {
		return err
	}
	if err := validateLanguageServers(c.LanguageServers); err != nil {
		return err
	}
	return checkCommands(c.CustomCommands)
}

// WithDefaults resolves c's unset fields from the environment's keys and
// the defaults, as LoadConfig does; for callers that build a Config by
// hand.
func (c Config) WithDefaults() Config { return c.resolve(os.Getenv) }

// resolve fills defaults. The provider defaults to Anthropic when
// ANTHROPIC_API_KEY is set, else OpenAI when OPENAI_API_KEY is set, else
// a local Ollama; the key comes from the provider's variable unless
// configured.
func (c Config) resolve(getenv func(string) string) Config {
	anthropicKey, openaiKey := getenv("ANTHROPIC_API_KEY"), getenv("OPENAI_API_KEY")
	if c.Provider == "" {
		switch {
		case c.BaseURL != "":
			c.Provider = "openai" // a configured endpoint is most likely OpenAI-compatible
		case anthropicKey != "":
			c.Provider = "anthropic"
		default:
			c.Provider = "openai"
		}
	}
	switch c.Provider {
	case "anthropic":
		if c.APIKey == "" {
			c.APIKey = anthropicKey
		}
		if c.BaseURL == "" {
			c.BaseURL = DefaultAnthropicURL
		}
		if c.Model == "" {
			c.Model = defaultClaudeModel
		}
	case "openai":
		if c.APIKey == "" {
			c.APIKey = openaiKey
		}
		if c.BaseURL == "" {
			c.BaseURL = DefaultOllamaURL
			if c.APIKey != "" {
				c.BaseURL = DefaultOpenAIURL
			}
		}
		if c.Model == "" {
			c.Model = defaultOllamaModel
			if c.BaseURL == DefaultOpenAIURL {
				c.Model = defaultOpenAIModel
			}
		}
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	return c
}
