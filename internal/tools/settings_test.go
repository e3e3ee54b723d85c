package tools

import (
	"slices"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
)

func TestOptionsFrom(t *testing.T) {
	off := false
	s := config.ToolSettings{
		ExecTimeout: 30, ExecMaxTimeout: 60, ExecSandbox: &off,
		ExecEnv: []string{"MY_TOOL_*"}, WebAllow: []string{"localhost:5173"},
		Exec: config.ExecSettings{Approval: config.ApprovalReadOnly, Allow: []string{"make"}, Deny: []string{"rm"}},
	}
	o := OptionsFrom(s)
	if o.Exec.Timeout != 30*time.Second || o.Exec.MaxTimeout != 60*time.Second {
		t.Errorf("exec timeouts = %v / %v, want 30s / 60s", o.Exec.Timeout, o.Exec.MaxTimeout)
	}
	if !o.Exec.NoSandbox {
		t.Error("execSandbox false did not turn the sandbox off")
	}
	if !slices.Equal(o.Exec.Env, s.ExecEnv) || !slices.Equal(o.Web.Allow, s.WebAllow) {
		t.Errorf("env / web allow = %v / %v", o.Exec.Env, o.Web.Allow)
	}
	if o.Exec.Approval != ApprovalReadOnly || !slices.Equal(o.Exec.Allow, []string{"make"}) || !slices.Equal(o.Exec.Deny, []string{"rm"}) {
		t.Errorf("exec rules = %+v", o.Exec)
	}
	// The options never share a backing array with the settings.
	o.Exec.Allow[0] = "changed"
	if s.Exec.Allow[0] != "make" {
		t.Error("OptionsFrom shares the allow list")
	}

	if z := OptionsFrom(config.ToolSettings{}); z.Exec.Timeout != 0 || z.Exec.NoSandbox || z.Exec.Approval != "" {
		t.Errorf("unset settings must leave the tools' defaults: %+v", z)
	}
	on := true
	if OptionsFrom(config.ToolSettings{ExecSandbox: &on}).Exec.NoSandbox {
		t.Error("execSandbox true turned the sandbox off")
	}
}
