package tools

import (
	"context"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/shell"
)

// A run whose changes are pending (RunView) runs every command over its
// copy-on-write layer: the command sees the workspace as the user has
// it (unsaved buffers included) plus the run's pending changes, and
// what it writes lands in the layer, pending the user's review like an
// edit. So a command that writes needs no question: nothing it does
// reaches the user's files unless the user keeps it. The rest of the
// sandbox stays: .git/ read-only, .catbuddy/ unreachable, the secrets
// hidden, and no network unless the user says yes, because what a
// command sends out cannot be taken back.

// execOverLayer runs in over the run's layer l (nil: there is none,
// and nothing runs, since a command must never see a workspace without
// the run's pending changes).
func (tc *ToolContext) execOverLayer(ctx context.Context, l Layer, in execInput, sh shell.Interpreter, cwd string, opts ExecOptions) (Result, error) {
	info := opts.SandboxInfo()
	if l == nil || !info.Overlay {
		why := info.OverlayReason
		if why == "" {
			why = "the run has no copy-on-write layer"
		}
		return Errorf("nothing ran: this run's changes are pending the user's review, and a command here could not see them (%s)", why), nil
	}
	// Writing needs no question: it lands in the layer. The network
	// still does, and the deny rules still apply.
	q := in
	q.Write = false
	grant, refusal, err := tc.decideExec(ctx, q, cwd, true)
	if err != nil {
		return Result{}, err
	}
	if refusal != "" {
		return Errorf("%s", refusal), nil
	}
	timeout := in.timeout(opts)
	checks := tc.execChecksBefore(ctx) // what the command's changes are compared with
	layers, err := l.Prepare(ctx, tc.Guard.Boundaries())
	if err != nil {
		_, _ = l.Collect(context.WithoutCancel(ctx))
		return Errorf("nothing ran: the run's layer could not be prepared: %v", err), nil
	}
	policy := sandbox.Policy{WriteWorkspace: true, Network: grant.Network}
	r, err := runConfinedOver(ctx, tc, sh, in.Command, cwd, timeout, policy, layers)
	// Even a cancelled command may have changed files.
	rep, cerr := l.Collect(context.WithoutCancel(ctx))
	states := tc.FileStates(ctx)
	for _, p := range rep.Changed {
		states.RecordCommandChange(p, in.Command)
	}
	if grant.How != "" {
		r.Output += " [" + grant.How + "]"
	}
	if rep.Summary != "" {
		r.Output += "\n" + rep.Summary
	}
	if cerr != nil {
		r.Output += "\n[what the command changed could not all be read from the run's layer: " + cerr.Error() + "]"
	}
	if len(rep.Changed) > 0 && ctx.Err() == nil {
		if report := tc.execChecksReport(ctx, rep.Changed, checks); report != "" {
			r.Output += "\n\n" + report
		}
	}
	return r, err
}
