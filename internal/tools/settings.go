package tools

import (
	"slices"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
)

// OptionsFrom returns the Options the tool settings s ask for; unset
// settings keep the tools' defaults. Which settings a project may set is
// decided before, by config.Load.
func OptionsFrom(s config.ToolSettings) Options {
	var o Options
	o.Exec.Timeout = time.Duration(s.ExecTimeout) * time.Second
	o.Exec.MaxTimeout = time.Duration(s.ExecMaxTimeout) * time.Second
	o.Exec.NoSandbox = s.ExecSandbox != nil && !*s.ExecSandbox
	o.Exec.Env = slices.Clone(s.ExecEnv)
	o.Web.Allow = slices.Clone(s.WebAllow)
	o.Exec.Approval = s.Exec.Approval
	o.Exec.Allow = slices.Clone(s.Exec.Allow)
	o.Exec.Deny = slices.Clone(s.Exec.Deny)
	return o
}
