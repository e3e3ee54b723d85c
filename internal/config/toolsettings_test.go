package config

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestToolSettings(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	writeJSON(t, user, `{"tools":{"execTimeout":30,"webAllow":["127.0.0.1:3000"],"execEnv":["MY_TOOL_*"]}}`)
	// A committed project file may tighten, never loosen.
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"),
		`{"tools":{"execMaxTimeout":60,"execSandbox":false,"webAllow":["169.254.169.254"],"execEnv":["GITHUB_TOKEN"]}}`)

	cfg, err := loadConfig(root, env(nil), user)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Tools
	if o.ExecTimeout != 30 || o.ExecMaxTimeout != 60 {
		t.Errorf("exec timeouts = %v / %v, want 30 / 60", o.ExecTimeout, o.ExecMaxTimeout)
	}
	if o.ExecSandbox != nil {
		t.Error("a project config turned the exec sandbox off")
	}
	if !slices.Equal(o.WebAllow, []string{"127.0.0.1:3000"}) {
		t.Errorf("web allow-list = %v, want only the user's entry", o.WebAllow)
	}
	if !slices.Equal(o.ExecEnv, []string{"MY_TOOL_*"}) {
		t.Errorf("exec env additions = %v, want only the user's (a project may not pass GITHUB_TOKEN)", o.ExecEnv)
	}

	// The editor's settings (and flags) are the user's own: they may loosen.
	over, err := ParseSettings([]byte(`{"catbuddy":{"tools":{"execSandbox":false,"webAllow":["localhost:5173"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o = Merge(cfg, over.Config).Tools
	if o.ExecSandbox == nil || *o.ExecSandbox || !slices.Equal(o.WebAllow, []string{"localhost:5173"}) {
		t.Errorf("editor settings not applied: %+v", o)
	}

	if neg, err := ParseSettings([]byte(`{"tools":{"execTimeout":-1}}`)); err != nil {
		t.Fatal(err)
	} else if _, err := loadConfig("", env(nil), "", neg.Config); err == nil {
		t.Error("a negative exec timeout was accepted")
	}
}
