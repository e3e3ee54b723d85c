package agent

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
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
	o := cfg.ToolOptions()
	if o.Exec.Timeout != 30*time.Second || o.Exec.MaxTimeout != 60*time.Second {
		t.Errorf("exec timeouts = %v / %v, want 30s / 60s", o.Exec.Timeout, o.Exec.MaxTimeout)
	}
	if o.Exec.NoSandbox {
		t.Error("a project config turned the exec sandbox off")
	}
	if !slices.Equal(o.Web.Allow, []string{"127.0.0.1:3000"}) {
		t.Errorf("web allow-list = %v, want only the user's entry", o.Web.Allow)
	}
	if !slices.Equal(o.Exec.Env, []string{"MY_TOOL_*"}) {
		t.Errorf("exec env additions = %v, want only the user's (a project may not pass GITHUB_TOKEN)", o.Exec.Env)
	}

	// The editor's settings (and flags) are the user's own: they may loosen.
	over, err := ParseSettings([]byte(`{"catbuddy":{"tools":{"execSandbox":false,"webAllow":["localhost:5173"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o = Merge(cfg, over.Config).ToolOptions()
	if !o.Exec.NoSandbox || !slices.Equal(o.Web.Allow, []string{"localhost:5173"}) {
		t.Errorf("editor settings not applied: %+v", o)
	}

	if neg, err := ParseSettings([]byte(`{"tools":{"execTimeout":-1}}`)); err != nil {
		t.Fatal(err)
	} else if _, err := loadConfig("", env(nil), "", neg.Config); err == nil {
		t.Error("a negative exec timeout was accepted")
	}
	if (Config{}).ToolOptions().Exec.Timeout != 0 {
		t.Error("unset settings must leave the tools' defaults")
	}
}
