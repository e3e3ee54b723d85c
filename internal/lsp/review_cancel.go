package lsp

import (
	"context"
	"errors"
)

// A turn's end-of-turn review (reviewTurn, for a client without the
// pendingChanges capability) waits for the user, up to questionTimeout.
// A user who walked away from it (eglot's C-g sends no answer) cancels
// the run instead: catbuddy.cancel, or the progress's Cancel. That
// withdraws the review at once — the applyEdit request is abandoned
// with $/cancelRequest, and an answer that comes after all is dropped
// (jsonrpc2 drops a response nobody waits for) — and the turn ends. The
// set is neither kept nor discarded: it stays pending, and the user is
// told how to keep it. A cancel during the agent's work still leaves its
// changes to the review, as before: only the review itself is withdrawn.

// beginReview returns the context of r's end-of-turn review, for the
// turn whose done channel is given, and the function that ends it. The
// context is the connection's, cancelled when the user cancels the turn
// while it waits. A turn whose agent finished (agentDone) but was
// cancelled since is reviewed on an already cancelled context: the
// cancel came during the review's preparation, and means it.
func (rs *runs) beginReview(turnCtx context.Context, r *run, done chan struct{}, agentDone bool) (context.Context, func()) {
	ctx, stop := context.WithCancelCause(rs.s.baseCtx)
	rs.mu.Lock()
	if r.done == done {
		r.stopReview = stop
	}
	rs.mu.Unlock()
	if cause := context.Cause(turnCtx); agentDone && errors.Is(cause, errCancelledByUser) {
		stop(cause)
	}
	return ctx, func() {
		rs.mu.Lock()
		if r.done == done {
			r.stopReview = nil
		}
		rs.mu.Unlock()
		stop(nil)
	}
}

// cancelTurn cancels r's turn whose done channel is given, if it still
// goes on: its agent's work, and its end-of-turn review if one waits.
// It reports whether there was such a turn.
func (rs *runs) cancelTurn(r *run, done chan struct{}, cause error) bool {
	rs.mu.Lock()
	if r.done != done || rs.active[r.ID] != r {
		rs.mu.Unlock()
		return false
	}
	cancel, stop := r.cancel, r.stopReview
	rs.mu.Unlock()
	cancel(cause)
	if stop != nil {
		stop(cause)
	}
	return true
}

// reviewCancelled reports whether the review on ctx ended because the
// user cancelled the run.
func reviewCancelled(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), errCancelledByUser)
}
