package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// A turn's edits and the files its commands write are pending in the
// session's change set while the model works: nothing is asked per
// edit. At the end of each turn the user is asked once, with ONE
// session/request_permission carrying the diff of every pending file:
// Allow keeps them all, "Allow all edits in this session" keeps them and
// every later turn's without asking, Reject discards them. The model
// hears what became of them at the start of its next turn. With review
// "before" (or without the copy-on-write layer), each change is asked
// before it lands, as permission.go does.

// reviewPending asks about set at the end of a turn and keeps or
// discards what it holds. It runs on a context that outlives a cancelled
// turn: what the turn left is reviewed all the same.
func (s *acpSession) reviewPending(ctx context.Context, set *changeset.Set) {
	files := set.Files()
	if len(files) == 0 {
		return
	}
	s.ws.mu.Lock()
	allowed := s.ws.allowEdits
	s.ws.mu.Unlock()
	title := pendingTitle(files)
	call := s.questionCall(ctx, title, sdk.ToolKindEdit)
	diffs := pendingDiffs(ctx, set.Workspace(s.ws), files)
	if !allowed {
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path.Abs
		}
		choice, err := s.askChanges(ctx, call, title, sdk.ToolKindEdit, paths, diffs)
		switch {
		case err != nil && ctx.Err() == nil:
			// Nobody could be asked: the set stays pending for the next turn.
			s.a.log.Warn("acp: the pending changes could not be put to the user", "session", s.id, "error", err)
			s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
			return
		case choice == optAllowSession:
			s.ws.mu.Lock()
			s.ws.allowEdits = true
			s.ws.mu.Unlock()
		case choice != optAllow:
			gone, derr := set.Discard(changeset.Selection{})
			s.a.log.Info("acp: pending changes discarded", "session", s.id, "discarded", len(gone), "error", derr)
			s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
			return
		}
	}
	res, err := set.Keep(ctx, changeset.Selection{}, keepWorkspace{s.ws})
	status := sdk.ToolCallStatusCompleted
	if err != nil {
		s.a.log.Warn("acp: pending changes not kept", "session", s.id, "error", err)
		status = sdk.ToolCallStatusFailed
	}
	if len(res.Left) > 0 {
		var b strings.Builder
		for _, l := range res.Left {
			fmt.Fprintf(&b, "\n- %s", l.Reason)
		}
		s.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("%d change(s) stay pending:%s", len(res.Left), b.String())))
	}
	s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(diffs)))
}

// pendingTitle names every pending file.
func pendingTitle(files []changeset.File) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Path.Rel
	}
	if len(files) == 1 {
		return "Keep the change to " + names[0]
	}
	return fmt.Sprintf("Keep the changes to %d files: %s", len(files), strings.Join(names, ", "))
}

// pendingDiffs is the diff of every pending file: its text as the run
// found it (worked out from the run's text, view's, and the hunks), and
// as keeping every hunk makes it. A group is named with its count.
func pendingDiffs(ctx context.Context, view tools.Workspace, files []changeset.File) []sdk.ToolCallContent {
	out := make([]sdk.ToolCallContent, 0, len(files))
	for _, f := range files {
		if f.Group != nil {
			out = append(out, sdk.ToolContent(sdk.TextBlock(fmt.Sprintf("%s/ (%d files, %s)", f.Path.Rel, f.Group.Count, f.Kind))))
			continue
		}
		if f.Whole != nil {
			// Never read: it may be a link, a FIFO or gigabytes.
			out = append(out, sdk.ToolContent(sdk.TextBlock(f.Hunks[0].Label)))
			continue
		}
		var after []byte
		if f.Kind != changeset.KindDeleted {
			if doc, err := view.Read(ctx, f.Path); err == nil {
				after = doc.Content
			}
		}
		edits := make([]diff.Edit, len(f.Hunks))
		olds := make([]string, len(f.Hunks))
		for i, h := range f.Hunks {
			edits[i], olds[i] = h.Edit, h.OldText
		}
		base, _ := diff.Unapply(after, edits, olds)
		switch f.Kind {
		case changeset.KindCreated:
			out = append(out, sdk.ToolDiffContent(f.Path.Abs, string(after)))
		case changeset.KindDeleted:
			out = append(out, sdk.ToolDiffContent(f.Path.Abs, "", string(base)))
		default:
			out = append(out, sdk.ToolDiffContent(f.Path.Abs, string(after), string(base)))
		}
	}
	return out
}

// keepWorkspace writes what the user chose to keep: the session's
// workspace without its question (the user just answered it).
type keepWorkspace struct{ w *workspace }

var _ tools.MultiApplier = keepWorkspace{}

// Read implements tools.Workspace.
func (k keepWorkspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	return k.w.Read(ctx, p)
}

// Apply implements tools.Workspace.
func (k keepWorkspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	docs, err := k.ApplyAll(ctx, []tools.Change{c})
	if err != nil {
		return tools.Document{}, err
	}
	return docs[0], nil
}

// ApplyAll implements tools.MultiApplier: the bases are checked, as for
// every change, then the files are written.
func (k keepWorkspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	for _, c := range cs {
		if err := k.w.checkBase(ctx, c); err != nil {
			return nil, err
		}
	}
	return k.w.write(ctx, cs)
}
