package agent

import (
	"time"

	"github.com/catbuddy/cb-ls/tools"
)

// ToolSettings tune the tools that reach past the file API. They live in
// the same config files and editor settings as the rest ("tools": {…}).
type ToolSettings struct {
	// ExecTimeout is exec's default timeout in seconds (120).
	ExecTimeout int `json:"execTimeout,omitempty"`
	// ExecMaxTimeout caps the timeout the model may ask for, in seconds (600).
	ExecMaxTimeout int `json:"execMaxTimeout,omitempty"`
	// ExecSandbox false runs exec without Landlock confinement.
	ExecSandbox *bool `json:"execSandbox,omitempty"`
	// ExecEnv names environment variables (or prefixes, "FOO_*") that
	// exec's commands inherit beyond the built-in allow-list.
	ExecEnv []string `json:"execEnv,omitempty"`
	// WebAllow opens hosts ("host" or "host:port") that web_fetch's SSRF
	// guard would refuse, such as a local dev server.
	WebAllow []string `json:"webAllow,omitempty"`
}

// ToolOptions returns the tools.Options these settings ask for; unset
// fields keep the tools' defaults.
func (c Config) ToolOptions() tools.Options {
	var o tools.Options
	t := c.Tools
	o.Exec.Timeout = time.Duration(t.ExecTimeout) * time.Second
	o.Exec.MaxTimeout = time.Duration(t.ExecMaxTimeout) * time.Second
	o.Exec.NoSandbox = t.ExecSandbox != nil && !*t.ExecSandbox
	o.Exec.Env = append([]string(nil), t.ExecEnv...)
	o.Web.Allow = append([]string(nil), t.WebAllow...)
	return o
}
