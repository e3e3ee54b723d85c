package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The one rule for custom commands: the same settings give the same
// commands and the same complaints from every source.
const ruleBreakers = `{"model":"m","customCommands":[
	{"id":"fix","prompt":"replace the built-in"},
	{"id":"Explain","prompt":"a look-alike of a built-in"},
	{"id":"has space","prompt":"p"},
	{"id":"noprompt"},
	{"id":"tests","prompt":"write tests"},
	{"id":"tests","prompt":"again"},
	"not an object"]}`

func TestParseSettingsDropsAndNamesInvalidCommands(t *testing.T) {
	s, err := ParseSettings([]byte(ruleBreakers))
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "m" {
		t.Errorf("the other settings were lost: %+v", s.Config)
	}
	if want := []Command{{ID: "tests", Prompt: "write tests"}}; !cmp.Equal(want, s.CustomCommands) {
		t.Errorf("kept %+v, want %+v", s.CustomCommands, want)
	}
	var got []string
	for _, i := range s.Invalid {
		got = append(got, i.Key+": "+i.Reason)
	}
	want := []string{
		"customCommands.fix: " + ReasonBuiltin,
		"customCommands.Explain: " + ReasonBuiltin,
		`customCommands.has space: the id must be a letter or digit followed by letters, digits, ".", "_" or "-"`,
		"customCommands.noprompt: the prompt is missing",
		"customCommands.tests: the id is used twice",
		"customCommands[6]: not a command {id, title, prompt}",
	}
	if !cmp.Equal(want, got) {
		t.Errorf("invalid:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fix, _ := FindCommand(s.Config, "fix"); fix.Prompt != builtinCommands[0].Prompt {
		t.Errorf("fix was replaced: %+v", fix)
	}

	if s, err := ParseSettings([]byte(`{"model":"m","customCommands":{"id":"x"}}`)); err != nil || s.Model != "m" || len(s.Invalid) != 1 {
		t.Errorf("customCommands not a list: %+v, %v", s, err)
	}
}

func TestConfigFilesFollowTheCommandRule(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	writeJSON(t, user, `{"customCommands":[{"id":"fix","prompt":"mine"}]}`)
	if _, err := loadConfig("", env(nil), user); err == nil || !strings.Contains(err.Error(), user) || !strings.Contains(err.Error(), "built-in") {
		t.Errorf("a user file with a command called fix: %v", err)
	}

	root := t.TempDir()
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"), ruleBreakers)
	l, err := load(LoadOptions{Root: root}, env(nil), "", TrustStore{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Model != "m" || len(l.Ignored) != 6 {
		t.Errorf("project file: model %q, ignored %v", l.Model, l.Ignored)
	}
	if _, ok := FindCommand(l.Config, "tests"); !ok {
		t.Error("the valid project command is missing")
	}
	if err := (Config{CustomCommands: []Command{{ID: "ask", Prompt: "p"}}}).validate(); err == nil {
		t.Error("a hand-built configuration with a command called ask passed")
	}
}
