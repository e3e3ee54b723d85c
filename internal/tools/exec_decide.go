package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// Values of tools.exec.approval.
const (
	// ApprovalAsk asks the user before a command gets write or network
	// access (the default).
	ApprovalAsk = "ask"
	// ApprovalReadOnly refuses such requests without asking.
	ApprovalReadOnly = "readOnly"
	// ApprovalAllowAll grants them without asking: the user's explicit
	// opt-in, never taken from a project's config.
	ApprovalAllowAll = "allowAll"
)

// execGrant is what a command may do once the decision is made.
type execGrant struct {
	// Write: the workspace is writable to the command (asked for and
	// granted, or no sandbox keeps it read-only); its changes are
	// reported after it ran.
	Write bool
	// Network was asked for and granted.
	Network bool
	// How says why it runs without a question, or that the user approved.
	How string
}

// decideExec applies the approval rules to one command. A non-empty
// refusal is the model's answer and nothing runs.
func (tc *ToolContext) decideExec(ctx context.Context, in execInput, cwd string, confined bool) (g execGrant, refusal string, err error) {
	opts := tc.options(ctx).Exec
	if rule, ok := guard.AnyPrefix(in.Command, opts.Deny); ok {
		return g, fmt.Sprintf("refused by the rule %q in tools.exec.deny; nothing ran", rule), nil
	}
	readOnly := guard.ReadOnlyCommand(in.Command)
	g = execGrant{Write: in.Write || !confined, Network: in.Network}
	listable := sandbox.StateNamesListable(tc.Guard.Roots(), opts.SandboxInfo())
	if !in.Write && !in.Network && (confined || readOnly) && !listable {
		return g, "", nil // read-only: the sandbox or the command itself keeps the workspace as it is
	}
	req := ApprovalRequest{Command: in.Command, Cwd: cwd, Reason: in.Reason, Write: in.Write, Network: in.Network,
		Unconfined: !confined, StateListable: listable, Prefix: guard.CommandPrefix(in.Command)}
	switch opts.Approval {
	case ApprovalReadOnly:
		if listable && !in.Write && !in.Network {
			return g, "this system's sandbox cannot hide the names of the files in .catbuddy/ from a command, and tools.exec.approval is readOnly, so no command runs while .catbuddy/ exists; nothing ran", nil
		}
		if !in.Write && !in.Network {
			return g, "no sandbox keeps the workspace read-only on this system and tools.exec.approval is readOnly, so only commands known to only read may run (ls, cat, grep, find, git status/diff/log/show, go vet/list, …); nothing ran", nil
		}
		return g, fmt.Sprintf("this command asked to %s, and tools.exec.approval is readOnly: such requests are refused; nothing ran. Use edit_file for source changes", req.Access()), nil
	case ApprovalAllowAll:
		g.How = "allowed by tools.exec.approval allowAll"
		return g, "", nil
	}
	if rule, ok := guard.MatchPrefix(in.Command, tc.allowRules(opts.Allow)); ok {
		g.How = fmt.Sprintf("allowed by the rule %q", rule)
		return g, "", nil
	}
	if tc.Approver == nil {
		return g, fmt.Sprintf("this command needs the user's approval (it may %s), and there is no one to ask; nothing ran", req.Access()), nil
	}
	d, err := tc.Approver.Approve(ctx, req)
	if ctx.Err() != nil {
		return g, "", ctx.Err()
	}
	if errors.Is(err, ErrNoAnswer) {
		return g, fmt.Sprintf("%v: the question was withdrawn and counts as a no; nothing ran. Do not retry it: take another way, or say in your answer what you wanted to run", err), nil
	}
	if err != nil {
		return g, fmt.Sprintf("could not ask the user to approve this command: %v; nothing ran", err), nil
	}
	if d == AlwaysApproved && req.Prefix == "" {
		d = Approved // nothing to remember
	}
	switch d {
	case Approved:
		g.How = "approved by the user"
	case AlwaysApproved:
		tc.rememberAllow(req.Prefix)
		g.How = fmt.Sprintf("approved by the user, who always allows %q", req.Prefix)
	default:
		return g, "the user rejected running this command; nothing ran. Do not retry it: ask the user, or take another way (edit_file for source changes)", nil
	}
	return g, "", nil
}

// allowRules are the configured allow rules plus those the user chose
// "Always allow" for in this session.
func (tc *ToolContext) allowRules(configured []string) []string {
	tc.allowMu.Lock()
	defer tc.allowMu.Unlock()
	return append(slices.Clone(configured), tc.allowed...)
}

func (tc *ToolContext) rememberAllow(prefix string) {
	if prefix == "" {
		return
	}
	tc.allowMu.Lock()
	defer tc.allowMu.Unlock()
	if !slices.Contains(tc.allowed, prefix) {
		tc.allowed = append(tc.allowed, prefix)
	}
}

// policy is what the sandbox enforces for the grant. .git stays
// read-only unless the approved command names git's own operations
// (git commit, git checkout, …): git runs hooks and config from there
// outside any sandbox.
func (g execGrant) policy(line string) sandbox.Policy {
	return sandbox.Policy{WriteWorkspace: g.Write, Network: g.Network, WriteGit: g.Write && guard.GitWrites(line)}
}
