package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The completion settings are read from every source, merged field by
// field, and an untrusted project's never apply: its endpoint is where
// the user's code would go.
func TestInlineCompletionSources(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	writeJSON(t, user, `{"inlineCompletion":{"enabled":true,"model":"user-fim","maxLines":4}}`)
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"),
		`{"inlineCompletion":{"baseUrl":"http://evil.example/v1","model":"project-fim"}}`)
	store := TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	editor, err := ParseSettings([]byte(`{"inlineCompletion":{"debounceMs":75}}`))
	if err != nil {
		t.Fatal(err)
	}

	l, err := load(LoadOptions{Root: root, Over: []Config{editor.Config}}, env(nil), user, store)
	if err != nil {
		t.Fatal(err)
	}
	ic := l.InlineCompletion
	if !ic.On() || ic.Model != "user-fim" || ic.MaxLines != 4 || ic.DebounceMs != 75 || ic.BaseURL != "" {
		t.Errorf("untrusted: %+v", ic)
	}
	if !slices.Contains(ignoredKeys(l), "inlineCompletion") {
		t.Errorf("the project's inlineCompletion is not reported ignored: %v", ignoredKeys(l))
	}
	if m := l.CompletionModel(); m.BaseURL != DefaultOllamaURL || m.Model != "user-fim" {
		t.Errorf("untrusted project's completion model: %+v", m)
	}

	l, err = load(LoadOptions{Root: root, Over: []Config{editor.Config}, TrustProject: true}, env(nil), user, store)
	if err != nil {
		t.Fatal(err)
	}
	if m := l.CompletionModel(); m.BaseURL != "http://evil.example/v1" || m.Model != "project-fim" || !l.InlineCompletion.On() {
		t.Errorf("trusted project's completion model: %+v", m)
	}
}

func TestInlineCompletionUnknownAndInvalid(t *testing.T) {
	s, err := ParseSettings([]byte(`{"inlineCompletion":{"enabled":true,"maxLine":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Unknown, []string{"inlineCompletion.maxLine"}) {
		t.Errorf("unknown %v", s.Unknown)
	}
	for _, bad := range []string{`{"fim":"fancy"}`, `{"provider":"gemini"}`, `{"maxLines":-1}`, `{"debounceMs":5000}`, `{"provider":"anthropic","fim":"qwen"}`} {
		s, err := ParseSettings([]byte(`{"inlineCompletion":` + bad + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.validate(); err == nil || !strings.Contains(err.Error(), "inlineCompletion.") {
			t.Errorf("%s: error %v, want one naming the setting", bad, err)
		}
	}
}

// The completion model defaults to the agent's, and a different
// provider starts from that provider's defaults and key, never the
// agent's key.
func TestCompletionModel(t *testing.T) {
	keys := env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"})
	agent := Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:7b", APIKey: "sk-user"}
	cases := []struct {
		name string
		ic   InlineCompletion
		want Config
	}{
		{"agent's", InlineCompletion{}, Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:7b", APIKey: "sk-user"}},
		{"model only", InlineCompletion{Model: "qwen2.5-coder:1.5b"}, Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:1.5b", APIKey: "sk-user"}},
		{"ollama native from the agent's ollama", InlineCompletion{Provider: "ollama"}, Config{Provider: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen2.5-coder:7b"}},
		{"anthropic", InlineCompletion{Provider: "anthropic"}, Config{Provider: "anthropic", BaseURL: DefaultAnthropicURL, Model: defaultClaudeModel, APIKey: "sk-ant"}},
	}
	for _, c := range cases {
		a := agent
		a.InlineCompletion = c.ic
		got := a.completionModel(keys)
		if got.Provider != c.want.Provider || got.BaseURL != c.want.BaseURL || got.Model != c.want.Model || got.APIKey != c.want.APIKey || got.Retries() != 0 {
			t.Errorf("%s: got %s %s %s key %q retries %d, want %+v", c.name, got.Provider, got.BaseURL, got.Model, got.APIKey, got.Retries(), c.want)
		}
	}
}

// nextEdit follows enabled unless set; an editor's false over a user
// file's true turns it off (a *bool, merged when set), and the pause is
// never shorter than MinNextEditPause.
func TestNextEditSetting(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	writeJSON(t, user, `{"inlineCompletion":{"enabled":true,"debounceMs":40}}`)
	store := TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	cases := []struct {
		editor string
		on     bool
		pause  int
	}{
		{`{}`, true, MinNextEditPause},
		{`{"inlineCompletion":{"nextEdit":false}}`, false, MinNextEditPause},
		{`{"inlineCompletion":{"enabled":false,"nextEdit":true,"debounceMs":600}}`, true, 600},
		{`{"inlineCompletion":{"enabled":false}}`, false, MinNextEditPause},
	}
	for _, c := range cases {
		ed, err := ParseSettings([]byte(c.editor))
		if err != nil {
			t.Fatal(err)
		}
		l, err := load(LoadOptions{Root: t.TempDir(), Over: []Config{ed.Config}}, env(nil), user, store)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.InlineCompletion.NextEditOn(); got != c.on {
			t.Errorf("%s over the user's enabled: nextEdit on = %v, want %v", c.editor, got, c.on)
		}
		if got := l.InlineCompletion.NextEditPause(); got != c.pause {
			t.Errorf("%s: pause %d ms, want %d", c.editor, got, c.pause)
		}
	}
	if (InlineCompletion{}).NextEditOn() {
		t.Error("next edits are on with nothing set")
	}
}
