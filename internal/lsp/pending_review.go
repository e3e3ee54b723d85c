package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/changeset"
)

// A client without the pendingChanges capability (eglot, Helix, any
// plain LSP client) cannot show a pending set. It gets the run's whole
// set at the end of each turn instead, before the turn's end event, as
// ONE annotated workspace/applyEdit with needsConfirmation on every
// hunk: the review it has always had, once per turn instead of once per
// edit. What the user accepts is kept, what they reject is discarded,
// and the model hears both on its next turn.

// keepRefused is the reason changeset.Set.Keep gives a hunk the editor
// did not apply: the user unticked it in the review.
const keepRefused = "the editor refused it"

// reviewTurn offers r's pending set to a client without the capability.
// It runs on the connection's context: a cancelled turn's changes are
// reviewed too.
func (rs *runs) reviewTurn(ctx context.Context, r *run) {
	s := rs.s
	set := r.Changes
	if set == nil || s.experimental().PendingChanges || set.Count() == 0 {
		return
	}
	offered := itemIDs(set.Files())
	res, err := set.Keep(rs.ledgerContext(ctx, r.ID), changeset.Selection{}, s.workspace)
	left := map[string]string{}
	for _, l := range res.Left {
		left[l.Hunk] = l.Reason
	}
	var discard []string
	switch {
	case errors.Is(err, errRefused):
		// The user said no to the whole review: what it offered goes
		// (hunks held back for a conflict were not offered).
		for _, id := range offered {
			if _, held := left[id]; !held {
				discard = append(discard, id)
			}
		}
	case err != nil:
		s.log.Warn("pending changes not reviewed", "run", r.ID, "error", err)
		s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"%s: the run's changes are still pending (%v); they are offered again at the end of its next turn, and catbuddy.keep or catbuddy.discard {\"runId\": %q} acts on them now.",
			r.Command.Title, err, r.ID))
		return
	default:
		for id, why := range left {
			if why == keepRefused {
				discard = append(discard, id)
			}
		}
	}
	gone := []string{}
	if len(discard) > 0 {
		if gone, err = set.Discard(changeset.Selection{Hunks: discard}); err != nil {
			s.log.Error("rejected changes not discarded", "run", r.ID, "error", err)
		}
	}
	s.log.Info("pending changes reviewed", "run", r.ID, "kept", len(res.Kept), "discarded", len(gone), "notKept", len(res.Left))
}

// itemIDs lists the ids of files' hunks and groups.
func itemIDs(files []changeset.File) []string {
	var out []string
	for _, f := range files {
		if f.Group != nil {
			out = append(out, f.Group.ID)
		}
		for _, h := range f.Hunks {
			out = append(out, h.ID)
		}
	}
	return out
}
