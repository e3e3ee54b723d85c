package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// A client without the pendingChanges capability (eglot, Helix, any
// plain LSP client) cannot show a pending set. It gets the run's whole
// set at the end of each turn instead, before the turn's end event, as
// ONE annotated workspace/applyEdit with needsConfirmation on every
// hunk: the review it has always had, once per turn instead of once per
// edit. What the user accepts is kept; what they reject, a review they
// refuse and a review nobody answers within questionTimeout are
// discarded; a review the user withdraws by cancelling the run leaves
// the set pending (review_cancel.go). The model hears all of it on its
// next turn, the user at once, in one message.

// keepRefused is the reason changeset.Set.Keep gives a hunk the editor
// did not apply: the user unticked it in the review.
const keepRefused = "the editor refused it"

// reviewTurn offers r's pending set to a client without the capability.
// ctx is the connection's (a turn cancelled at work has its changes
// reviewed too), ended when the user cancels the run during the review
// (beginReview).
// It returns what to tell the user, to be shown once the run is free to
// be replied to.
func (rs *runs) reviewTurn(ctx context.Context, r *run) (tell []protocol.ShowMessageParams) {
	s := rs.s
	set := r.Changes
	if set == nil || s.experimental().PendingChanges || set.Count() == 0 {
		return nil
	}
	offered, unoffered := s.reviewable(set.Files())
	title := r.Command.Title
	if len(offered) == 0 {
		// Nothing this client can apply: never an applyEdit without a
		// change (eglot shows it as "nil (0 change)").
		return []protocol.ShowMessageParams{{Type: protocol.MessageTypeWarning, Message: unofferedNote(title, r.ID, unoffered)}}
	}
	res, err := set.Keep(rs.ledgerContext(ctx, r.ID), changeset.Selection{Hunks: offered}, s.workspace)
	left := map[string]string{}
	for _, l := range res.Left {
		left[l.Hunk] = l.Reason
	}
	var discard []string
	var said string
	msgType := protocol.MessageTypeInfo
	switch {
	case err != nil && reviewCancelled(ctx):
		// Withdrawn by the user's cancel: nothing was applied, nothing is
		// lost. Hunks already kept (a client that applied some before the
		// cancel) stay kept.
		s.log.Info("pending changes review withdrawn: the run was cancelled", "run", r.ID, "pending", set.Count())
		set.Tell("the user cancelled the run during the review of your changes; they are still pending, neither kept nor discarded")
		return []protocol.ShowMessageParams{{Type: protocol.MessageTypeWarning, Message: cancelledReviewNote(title, r.ID, len(set.Files()))}}
	case errors.Is(err, tools.ErrNoAnswer):
		// Withdrawn unanswered: a no, and the model hears why.
		discard = notHeld(offered, left)
		why := err.Error()
		if i := strings.Index(why, tools.ErrNoAnswer.Error()); i >= 0 {
			why = why[i:] // "no answer from the user within 15m: the review of … was withdrawn"
		}
		set.Tell(why + ", which counts as no")
		said = "no answer to the review of its changes, so they were discarded"
		msgType = protocol.MessageTypeWarning
	case errors.Is(err, errRefused), errors.Is(err, errNotLanded):
		// The user said no to the whole review. eglot 1.17 says no with
		// applied:true and an unchanged buffer (errNotLanded). What it
		// offered goes (hunks held back for a conflict were not offered).
		discard = notHeld(offered, left)
		said = "you refused its changes, so they were discarded"
	case err != nil:
		s.log.Warn("pending changes not reviewed", "run", r.ID, "error", err)
		return []protocol.ShowMessageParams{{Type: protocol.MessageTypeWarning, Message: fmt.Sprintf(
			"%s: the run's changes are still pending (%v); they are offered again when its next turn ends (reply to the run to go on).",
			title, err)}}
	default:
		for id, why := range left {
			if why == keepRefused {
				discard = append(discard, id)
			}
		}
		if len(discard) > 0 {
			said = fmt.Sprintf("%d of its changes kept, %d you refused discarded", len(res.Kept), len(discard))
		}
	}
	gone := []string{}
	if len(discard) > 0 {
		if gone, err = set.Discard(changeset.Selection{Hunks: discard}); err != nil {
			s.log.Error("rejected changes not discarded", "run", r.ID, "error", err)
		}
	}
	s.log.Info("pending changes reviewed", "run", r.ID, "kept", len(res.Kept), "discarded", len(gone), "notKept", len(res.Left))
	if said != "" {
		tell = append(tell, protocol.ShowMessageParams{Type: msgType, Message: title + ": " + said + ". The agent is told if you reply to the run."})
	}
	if len(unoffered) > 0 {
		tell = append(tell, protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: unofferedNote(title, r.ID, unoffered)})
	}
	return tell
}

// reviewable splits files into the IDs the client can be offered and
// the files it cannot: a client that does not declare the create
// (delete) resource operation cannot create (delete) a file, and a
// group of generated files is never applied through the editor. Those
// stay pending for the commands, or for `cb-ls changes`. The files are
// named for a message, quoted as diff.QuoteName quotes them.
func (s *Server) reviewable(files []changeset.File) (ids, not []string) {
	var ops []protocol.ResourceOperationKind
	if caps := s.Capabilities(); caps.Workspace != nil && caps.Workspace.WorkspaceEdit != nil {
		ops = caps.Workspace.WorkspaceEdit.ResourceOperations
	}
	for _, f := range files {
		switch {
		case f.Group != nil:
			ids = append(ids, f.Group.ID)
			continue
		case f.Kind == changeset.KindCreated && !slices.Contains(ops, protocol.ResourceOperationKindCreate),
			f.Kind == changeset.KindDeleted && !slices.Contains(ops, protocol.ResourceOperationKindDelete):
			not = append(not, diff.QuoteName(f.Path.Rel))
			continue
		}
		for _, h := range f.Hunks {
			ids = append(ids, h.ID)
		}
	}
	return ids, not
}

// cancelledReviewNote tells the user where the changes of a run whose
// review they cancelled went, and how to keep them.
func cancelledReviewNote(title, runID string, files int) string {
	return fmt.Sprintf("%s: cancelled during the review of its changes, so none were applied; they stay pending (%d %s). "+
		"In the project, `cb-ls changes --keep %s` keeps them (`cb-ls changes %s` shows them, `--discard` drops them), "+
		"or reply to the run to review them again when its next turn ends.",
		title, files, plural(files, "file", "files"), runID, runID)
}

// unofferedNote tells the user which files the review could not offer
// and what they can do about them.
func unofferedNote(title, runID string, files []string) string {
	return fmt.Sprintf("%s: this editor cannot create or delete files for a language server, so %s stayed out of the review and %s still pending. In the project, `cb-ls changes --keep %s` keeps them and `cb-ls changes --discard %s` drops them.",
		title, strings.Join(files, ", "), plural(len(files), "is", "are"), runID, runID)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// notHeld is offered less the hunks Keep held back (left with a reason
// before anything was sent).
func notHeld(offered []string, left map[string]string) []string {
	var out []string
	for _, id := range offered {
		if _, held := left[id]; !held {
			out = append(out, id)
		}
	}
	return out
}
