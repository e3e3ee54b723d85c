package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	// Exec is tools.exec: when a command is asked about.
	Exec ExecSettings `json:"exec,omitzero"`
}

// Values of tools.exec.approval.
const (
	// ApprovalAsk asks the user before a command gets write or network
	// access (the default).
	ApprovalAsk = "ask"
	// ApprovalReadOnly refuses such requests without asking.
	ApprovalReadOnly = "readOnly"
	// ApprovalAllowAll grants them without asking; only the user's own
	// settings may say so.
	ApprovalAllowAll = "allowAll"
)

// ExecSettings decide which commands need the user's approval.
type ExecSettings struct {
	// Approval is "ask" (the default), "readOnly" (requests for write or
	// network access are refused without asking) or "allowAll" (granted
	// without asking; only from the user's own settings).
	Approval string `json:"approval,omitempty"`
	// Allow are whole-word command prefixes ("go generate") granted
	// without asking; only from the user's own settings.
	Allow []string `json:"allow,omitempty"`
	// Deny are command prefixes always refused; any config may add them.
	Deny []string `json:"deny,omitempty"`
}

// ReasonNeverGrants is why a project's exec grants are ignored.
const ReasonNeverGrants = "a project may refuse commands, never grant them"

// refusalsOnly keeps what a project's tools.exec may say, trusted or
// not: deny rules and approval readOnly. Allow rules and any other
// approval would grant commands the user never approved; those come only
// from the user's own file, the editor's settings or flags.
func (s ExecSettings) refusalsOnly() (ExecSettings, []Ignored) {
	var ignored []Ignored
	if len(s.Allow) > 0 {
		b, _ := json.Marshal(s.Allow)
		ignored = append(ignored, Ignored{Key: "tools.exec.allow", Value: string(b), Reason: ReasonNeverGrants})
	}
	if s.Approval != "" && s.Approval != ApprovalReadOnly {
		b, _ := json.Marshal(s.Approval)
		ignored = append(ignored, Ignored{Key: "tools.exec.approval", Value: string(b), Reason: ReasonNeverGrants})
		s.Approval = ""
	}
	s.Allow = nil
	return s, ignored
}

// mergeExecRules is how Merge combines tools.exec's rules: they add up,
// so the editor's allow rules join the user file's and every source's
// refusals count (a later source never erases an earlier refusal).
func mergeExecRules(base, over ExecSettings) (allow, deny []string) {
	return union(base.Allow, over.Allow), union(base.Deny, over.Deny)
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// validate checks the values of tools.exec.
func (s ExecSettings) validate() error {
	switch s.Approval {
	case "", ApprovalAsk, ApprovalReadOnly, ApprovalAllowAll:
	default:
		return fmt.Errorf("tools.exec.approval %q: want ask, readOnly or allowAll", s.Approval)
	}
	for _, r := range append(slices.Clone(s.Allow), s.Deny...) {
		if strings.TrimSpace(r) == "" {
			return fmt.Errorf("tools.exec.allow / tools.exec.deny: empty rule")
		}
	}
	return nil
}
