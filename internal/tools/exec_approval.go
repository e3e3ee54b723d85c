package tools

import (
	"context"
	"fmt"
	"strings"
)

// Approver asks the user whether a command may run with the access it
// needs. The editor asks with a dialog, `cb-ls run` on the terminal,
// `cb-ls tools run` answers from a flag. An error means nobody could be
// asked; the command does not run and the model is told why.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// Decision is the user's answer.
type Decision int

const (
	// Rejected: nothing runs. A dismissed question is a rejection.
	Rejected Decision = iota
	// Approved runs this command once.
	Approved
	// AlwaysApproved runs it and stores Prefix as an allow rule in the
	// user's config (the Approver stores it; exec remembers it for the
	// session).
	AlwaysApproved
)

// ApprovalRequest is one question: exactly what will run, where, why.
type ApprovalRequest struct {
	Command string
	Cwd     string
	// Reason is the model's short explanation (may be empty).
	Reason string
	// Write and Network are the access the command asked for.
	Write, Network bool
	// Unconfined is set when no sandbox keeps the workspace read-only,
	// so even a command that asked for nothing could change files.
	Unconfined bool
	// StateListable is set when this system's sandbox cannot keep the
	// command from listing the names in .catbuddy/ (see
	// sandbox.StateNamesListable), so even a read-only command is asked about.
	StateListable bool
	// Prefix is what "Always allow" would allow (whole words such as
	// "go generate"); "" when the line has no single command to name.
	Prefix string
}

// Access describes what the command would be allowed to do.
func (r ApprovalRequest) Access() string {
	var parts []string
	if r.Write || r.Unconfined {
		parts = append(parts, "change files in the workspace")
	}
	if r.Network {
		parts = append(parts, "use the network and unix sockets (Docker's, for one)")
	}
	if r.StateListable {
		parts = append(parts, "list the names of the files in .catbuddy/, cb-ls's sessions and settings "+
			"(not read them: this system's sandbox, without user namespaces, cannot hide the names)")
	}
	s := strings.Join(parts, " and ")
	if r.Unconfined && !r.StateListable { // with StateListable, Landlock still confines it
		s += " (no sandbox on this system: it runs with your full access)"
	}
	return s
}

// Message is the question's text, the same in every front end.
func (r ApprovalRequest) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run this command? It may %s.\n\n  %s\n\nin %s", r.Access(), r.Command, r.Cwd)
	if strings.TrimSpace(r.Reason) != "" {
		fmt.Fprintf(&b, "\nReason: %s", strings.TrimSpace(r.Reason))
	}
	return b.String()
}

// Action titles of the question. Front ends that show buttons use these
// so every editor offers the same choices.
const (
	ActionRun    = "Run"
	ActionReject = "Reject"
)

// AlwaysAction is the title of the "Always allow" choice for prefix.
func AlwaysAction(prefix string) string { return fmt.Sprintf("Always allow %q", prefix) }

// DecisionFor maps a chosen action title back to a Decision; anything
// else (a dismissed question included) is a rejection.
func (r ApprovalRequest) DecisionFor(title string) Decision {
	switch {
	case title == ActionRun:
		return Approved
	case r.Prefix != "" && title == AlwaysAction(r.Prefix):
		return AlwaysApproved
	}
	return Rejected
}

// Actions are the choices offered, in order: Reject first. Clients that
// pre-select the first action (eglot pre-fills it, so RET takes it; the
// pickers Neovim users install for vim.ui.select put the cursor on it;
// VS Code's modal dialog focuses the first button) then make the safe
// answer the one a stray Enter gives.
func (r ApprovalRequest) Actions() []string {
	out := []string{ActionReject, ActionRun}
	if r.Prefix != "" {
		out = append(out, AlwaysAction(r.Prefix))
	}
	return out
}

// ApproveAll is the Approver of `--yes` / `--approve all`.
var ApproveAll Approver = ApproverFunc(func(context.Context, ApprovalRequest) (Decision, error) { return Approved, nil })
