package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A project may add refusals (deny rules, approval readOnly) but can
// never grant: its allow rules and allowAll are dropped.
func TestExecSettingsPrecedence(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	proj := filepath.Join(root, ".catbuddy", "config.json")

	writeJSON(t, user, `{"tools":{"exec":{"allow":["go generate"],"deny":["terraform apply"]}}}`)
	writeJSON(t, proj, `{"tools":{"exec":{"approval":"allowAll","allow":["rm","curl"],"deny":["npm publish"]}}}`)
	cfg, err := loadConfig(root, env(nil), user)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Tools.Exec
	if o.Approval != "" || !slices.Equal(o.Allow, []string{"go generate"}) || !slices.Equal(o.Deny, []string{"terraform apply", "npm publish"}) {
		t.Errorf("project granted: %+v", o)
	}

	// Not even a trusted project grants.
	l, err := load(LoadOptions{Root: root, TrustProject: true}, env(nil), user, TrustStore{})
	if err != nil {
		t.Fatal(err)
	}
	if o := l.Config.Tools.Exec; o.Approval != "" || slices.Contains(o.Allow, "rm") || !slices.Contains(o.Deny, "npm publish") {
		t.Errorf("a trusted project granted: %+v", o)
	}
	if !strings.Contains(fmt.Sprint(l.Ignored), ReasonNeverGrants) {
		t.Errorf("ignored = %v, want the grants named", l.Ignored)
	}

	writeJSON(t, user, `{"tools":{"exec":{"approval":"allowAll"}}}`)
	writeJSON(t, proj, `{"tools":{"exec":{"approval":"readOnly"}}}`)
	cfg, _ = loadConfig(root, env(nil), user)
	if got := cfg.Tools.Exec.Approval; got != ApprovalReadOnly {
		t.Errorf("a project's readOnly over the user's allowAll = %q", got)
	}

	writeJSON(t, user, `{"tools":{"exec":{"approval":"readOnly"}}}`)
	writeJSON(t, proj, `{"tools":{"exec":{"approval":"ask"}}}`)
	cfg, _ = loadConfig(root, env(nil), user)
	if got := cfg.Tools.Exec.Approval; got != ApprovalReadOnly {
		t.Errorf("a project's ask loosened the user's readOnly: %q", got)
	}

	// The editor's settings and flags are the user's: they may grant.
	over, err := ParseSettings([]byte(`{"tools":{"exec":{"approval":"allowAll","allow":["make"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = loadConfig(root, env(nil), user, over.Config)
	if o := cfg.Tools.Exec; o.Approval != ApprovalAllowAll || !slices.Contains(o.Allow, "make") {
		t.Errorf("editor settings not applied: %+v", o)
	}

	bad, err := ParseSettings([]byte(`{"tools":{"exec":{"approval":"sometimes"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadConfig("", env(nil), "", bad.Config); err == nil || !strings.Contains(err.Error(), "want ask, readOnly or allowAll") {
		t.Errorf("bad approval = %v", err)
	}
}

func TestAddExecAllowRule(t *testing.T) {
	user := filepath.Join(t.TempDir(), "catbuddy", "config.json")
	if err := addExecAllowRule(user, "go generate"); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, user, `{"model":"m","tools":{"execTimeout":30,"exec":{"allow":["make"],"deny":["rm"]}}}`)
	for range 2 {
		if err := addExecAllowRule(user, "go generate"); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := readConfigFile(user, true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "m" || cfg.Tools.ExecTimeout != 30 || !slices.Equal(cfg.Tools.Exec.Allow, []string{"make", "go generate"}) || !slices.Equal(cfg.Tools.Exec.Deny, []string{"rm"}) {
		t.Errorf("after adding a rule: %+v", cfg)
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	os.WriteFile(user, []byte("{broken"), 0o600)
	if err := addExecAllowRule(user, "x"); err == nil || !strings.Contains(err.Error(), user) {
		t.Errorf("broken file = %v, want an error naming it", err)
	}
}
