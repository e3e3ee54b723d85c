package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeJSON(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// loadConfig is load with no trust store and the environment getenv.
func loadConfig(root string, getenv func(string) string, userFile string, over ...Config) (Config, error) {
	l, err := load(LoadOptions{Root: root, Over: over}, getenv, userFile, TrustStore{})
	return l.Config, err
}

func TestConfigPrecedence(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	writeJSON(t, user, `{"provider":"openai","model":"user-model","baseUrl":"http://user/v1","apiKey":"user-key","maxSteps":5,
		"customCommands":[{"id":"tests","title":"Agent: Write tests","prompt":"user ${file}"},{"id":"doc","prompt":"document ${selection}"}]}`)
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"), `{"model":"project-model","maxSteps":7,
		"customCommands":[{"id":"tests","title":"Agent: Tests","prompt":"project ${file}"}]}`)

	cfg, err := loadConfig(root, env(nil), user)
	if err != nil {
		t.Fatal(err)
	}
	// An untrusted project's command does not replace the user's own.
	want := Config{Provider: "openai", Model: "project-model", BaseURL: "http://user/v1", APIKey: "user-key", MaxSteps: 7,
		CustomCommands: []Command{{ID: "tests", Title: "Agent: Write tests", Prompt: "user ${file}"}, {ID: "doc", Prompt: "document ${selection}"}}}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	cfg, err = loadConfig(root, env(map[string]string{"CB_MODEL": "env-model", "CB_MAX_STEPS": "9", "CB_BASE_URL": "http://env/v1"}), user)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "env-model" || cfg.MaxSteps != 9 || cfg.BaseURL != "http://env/v1" {
		t.Errorf("env does not override files: %+v", cfg)
	}

	cfg, err = loadConfig(root, env(map[string]string{"CB_MODEL": "env-model"}), user, Config{Model: "flag-model", MaxSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "flag-model" || cfg.MaxSteps != 2 {
		t.Errorf("flags do not override env: %+v", cfg)
	}
}

func TestProjectFileKeyIgnored(t *testing.T) {
	root := t.TempDir()
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"), `{"apiKey":"committed-key"}`)
	cfg, err := loadConfig(root, env(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKey == "committed-key" {
		t.Errorf("a key from the project's config file was used")
	}
}

func TestConfigErrorsNameTheSource(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, ".catbuddy", "config.json")
	for content, want := range map[string]string{
		`{"provider":"gemini"}`:       "unknown provider",
		`{"model": 3}`:                "config.json",
		`{"modle":"typo"}`:            "modle",
		`{"modelIdleTimeout": -1}`:    "modelIdleTimeout -1: want a number of seconds from 1 to 86400",
		`{"modelIdleTimeout": 86401}`: "modelIdleTimeout 86401",
		`{"modelIdleTimeout": "5m"}`:  "config.json",
		`{"questionTimeout": -1}`:     "questionTimeout -1: want a number of seconds from 1 to 86400",
		`{"questionTimeout": 86401}`:  "questionTimeout 86401",
	} {
		writeJSON(t, proj, content)
		_, err := loadConfig(root, env(nil), "")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), proj) {
			t.Errorf("%s: err %v, want it to name %s and %q", content, err, proj, want)
		}
	}
	if _, err := loadConfig("", env(map[string]string{"CB_MAX_STEPS": "lots"}), ""); err == nil || !strings.Contains(err.Error(), "CB_MAX_STEPS") {
		t.Errorf("bad CB_MAX_STEPS: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		over Config
		want Config
	}{
		{"nothing: local ollama", nil, Config{},
			Config{Provider: "openai", BaseURL: DefaultOllamaURL, Model: defaultOllamaModel, MaxSteps: 30}},
		{"openai key", map[string]string{"OPENAI_API_KEY": "ok"}, Config{},
			Config{Provider: "openai", BaseURL: DefaultOpenAIURL, Model: defaultOpenAIModel, APIKey: "ok", MaxSteps: 30}},
		{"anthropic key wins", map[string]string{"OPENAI_API_KEY": "ok", "ANTHROPIC_API_KEY": "ak"}, Config{},
			Config{Provider: "anthropic", BaseURL: DefaultAnthropicURL, Model: defaultClaudeModel, APIKey: "ak", MaxSteps: 30}},
		{"explicit provider picks its key", map[string]string{"OPENAI_API_KEY": "ok", "ANTHROPIC_API_KEY": "ak"}, Config{Provider: "openai"},
			Config{Provider: "openai", BaseURL: DefaultOpenAIURL, Model: defaultOpenAIModel, APIKey: "ok", MaxSteps: 30}},
		{"a base URL means openai-compatible", map[string]string{"ANTHROPIC_API_KEY": "ak"}, Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "llama"},
			Config{Provider: "openai", BaseURL: "http://127.0.0.1:8080/v1", Model: "llama", MaxSteps: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadConfig("", env(tc.env), "", tc.over)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelIdleTimeout(t *testing.T) {
	root := t.TempDir()
	// A project may set it untrusted: it only decides how long a stalled
	// model is waited for.
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"), `{"modelIdleTimeout": 45}`)
	cfg, err := loadConfig(root, env(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelIdleTimeout != 45 || cfg.ModelIdle() != 45*time.Second {
		t.Errorf("project's modelIdleTimeout 45: got %d (%v)", cfg.ModelIdleTimeout, cfg.ModelIdle())
	}
	if got := (Config{}).ModelIdle(); got != 300*time.Second {
		t.Errorf("default idle limit %v, want 5m0s", got)
	}
}

func TestMergeProviderChangeDropsURLAndModel(t *testing.T) {
	base := Config{Provider: "openai", BaseURL: "http://x/v1", Model: "gpt"}
	got := Merge(base, Config{Provider: "anthropic"}).WithDefaults()
	if got.BaseURL != DefaultAnthropicURL || got.Model != defaultClaudeModel {
		t.Errorf("switching provider kept the other provider's endpoint/model: %+v", got)
	}
}

func TestParseSettings(t *testing.T) {
	raw := json.RawMessage(`{"catbuddy":{"provider":"anthropic","apiKey":"k","maxSteps":4,"mode":"project",
		"customCommands":[{"id":"t","title":"T","prompt":"p ${input}"}]}}`)
	got, err := ParseSettings(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Config: Config{Provider: "anthropic", APIKey: "k", MaxSteps: 4, Mode: "project", CustomCommands: []Command{{ID: "t", Title: "T", Prompt: "p ${input}"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"model":3}`, `{"tools":[]}`} {
		if _, err := ParseSettings(json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// Values are validated where they are used: a run is refused, naming them.
	for bad, want := range map[string]string{`{"maxSteps":-1}`: "maxSteps", `{"mode":"everything"}`: "everything"} {
		s, err := ParseSettings(json.RawMessage(bad))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loadConfig("", env(nil), "", s.Config); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want it named", bad, err)
		}
	}
	// Neovim sends an empty Lua table as []; null and {} are "nothing" too.
	for _, empty := range []string{``, `null`, `[]`, `{}`, ` [ ] `, `{"catbuddy":null}`, `{"catbuddy":[]}`} {
		if s, err := ParseSettings(json.RawMessage(empty)); err != nil || !cmp.Equal(s, Settings{}) {
			t.Errorf("%q: %+v %v", empty, s, err)
		}
	}
	// The key never serialises.
	b, _ := json.Marshal(got.Config)
	if strings.Contains(string(b), `"k"`) {
		t.Errorf("Config marshalled its key: %s", b)
	}
}

func TestParseSettingsNamesUnknownKeys(t *testing.T) {
	s, err := ParseSettings(json.RawMessage(`{"modle":"x","Model":"m","tools":{"webAlow":[],"execTimeout":5},
		"customCommands":[{"id":"a","prompt":"p","promt":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"customCommands[0].promt", "modle", "tools.webAlow"}; !cmp.Equal(want, s.Unknown) {
		t.Errorf("unknown = %v, want %v", s.Unknown, want)
	}
	if s.Model != "m" || s.Tools.ExecTimeout != 5 {
		t.Errorf("known keys lost: %+v", s.Config)
	}
}

func TestMergeIsFieldByField(t *testing.T) {
	off := false
	base := Config{Model: "a", MaxTokens: 10, Tools: ToolSettings{ExecTimeout: 30, WebAllow: []string{"x"}}}
	over := Config{MaxRetries: 3, DisableStreaming: true, Tools: ToolSettings{ExecSandbox: &off}}
	got := Merge(base, over)
	want := Config{Model: "a", MaxTokens: 10, MaxRetries: 3, DisableStreaming: true, Tools: ToolSettings{ExecTimeout: 30, WebAllow: []string{"x"}, ExecSandbox: &off}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got.Tools.WebAllow[0] = "changed"
	if base.Tools.WebAllow[0] != "x" {
		t.Error("Merge shares a slice with its input")
	}
}
