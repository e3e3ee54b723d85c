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
// edit. At the end of each turn the user is asked once, on a tool call
// of its own ("Keep 3 changed files?", so that the turn's calls keep
// their statuses), with ONE session/request_permission carrying the
// diff of every pending file (one question per file for a client that
// shows one diff of a question: questions.go): Allow keeps them, "Allow
// all edits in this session" keeps them and every later turn's without
// asking, Reject discards them. The call then says what landed: a keep
// the client applied only in part (a write it refused) is failed, with
// a text naming what was kept and what was not. The model hears what
// became of them at the start of its next turn. With review "before"
// (or without the copy-on-write layer), each change is asked before it
// lands, as permission.go does.

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
	diffs := pendingDiffs(ctx, set.Workspace(s.ws), files)
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path.Abs
	}
	prof := s.a.profile()
	if allowed {
		prof.firstContentOnly = false // nothing is asked: one call shows it all
	}
	qs := prof.questions(pendingTitle(files), paths, diffs, func(i int) string {
		return ofTotal(pendingTitle(files[i:i+1]), i, len(files))
	})
	asked := make([]keepAnswer, len(qs))
	for i, q := range qs {
		call := s.newCall(ctx, q.title, sdk.ToolKindEdit, q.paths)
		asked[i] = keepAnswer{q: q, call: call, keep: allowed}
		if allowed {
			continue
		}
		choice, err := s.askChanges(ctx, call, q.title, sdk.ToolKindEdit, q.paths, q.diffs)
		switch {
		case err != nil && ctx.Err() == nil:
			// Nobody could be asked: the rest stays pending for the next turn.
			s.a.log.Warn("acp: the pending changes could not be put to the user", "session", s.id, "error", err)
			asked[i].unasked = true
			asked = asked[:i+1]
		case choice == optAllowSession:
			s.ws.mu.Lock()
			s.ws.allowEdits = true
			s.ws.mu.Unlock()
			allowed = true
			asked[i].keep = true
		case choice == optAllow:
			asked[i].keep = true
		}
		if asked[i].unasked {
			break
		}
	}
	var keep, drop []guard.Path
	for _, a := range asked {
		for _, f := range a.q.files {
			switch {
			case a.keep:
				keep = append(keep, files[f].Path)
			case !a.unasked:
				drop = append(drop, files[f].Path)
			}
		}
	}
	if len(drop) > 0 {
		// A Selection naming no file would be every file: drop is never empty here.
		gone, derr := set.Discard(changeset.Selection{Files: drop})
		s.a.log.Info("acp: pending changes discarded", "session", s.id, "discarded", len(gone), "error", derr)
	}
	var res changeset.KeepResult
	var kerr error
	if len(keep) > 0 {
		res, kerr = set.Keep(ctx, changeset.Selection{Files: keep}, keepWorkspace{s.ws})
		if kerr != nil {
			s.a.log.Warn("acp: pending changes not kept", "session", s.id, "error", kerr)
		}
	}
	if len(res.Left) > 0 {
		var b strings.Builder
		for _, l := range res.Left {
			fmt.Fprintf(&b, "\n- %s", l.Reason)
		}
		if conflicted(set) {
			// The client has no way to resolve a conflict; the command line has.
			fmt.Fprintf(&b, "\nResolve the conflicts with `cb-ls changes %s --keep --conflicts=both|theirs|run|markers` (both: your lines then the run's; theirs: yours stay; run: the run's replace yours; markers: git's conflict markers).", set.RunID())
		}
		s.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("%d change(s) stay pending:%s", len(res.Left), b.String())))
	}
	for _, a := range asked {
		s.reportKeep(ctx, a, files, res, kerr)
	}
}

// pendingTitle asks about the pending files, naming one. What keeping
// a file means beyond its diff is said before the user answers, in the
// title, which every client shows: a file that runs later without a
// build command ("runs later: direnv loads it on cd") and one keep will
// not write ("not kept: …"), each flagged file on a line of its own
// when several are asked about.
func pendingTitle(files []changeset.File) string {
	if len(files) == 1 {
		if n := fileNotes(files[0]); n != "" {
			return "Keep " + files[0].Path.Rel + "? (" + n + ")"
		}
		return "Keep " + files[0].Path.Rel + "?"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Keep %d changed files?", len(files))
	for _, f := range files {
		if n := fileNotes(f); n != "" {
			fmt.Fprintf(&b, "\n- %s: %s", f.Path.Rel, n)
		}
	}
	return b.String()
}

// fileNotes says what keeping f does beyond its diff: "not kept: …;
// runs later: …", or "" for a file without flags. The refusal comes
// first: it decides what Allow does.
func fileNotes(f changeset.File) string {
	var notes []string
	if f.KeepRefused != "" {
		notes = append(notes, notKept(f.KeepRefused))
	}
	if f.RunsLater != "" {
		notes = append(notes, "runs later: "+f.RunsLater)
	}
	return strings.Join(notes, "; ")
}

// notKept is a refusal as the user reads it; changeset's reasons already
// begin "not kept: " and are not said twice.
func notKept(reason string) string {
	if strings.HasPrefix(strings.ToLower(reason), "not kept") {
		return reason
	}
	return "not kept: " + reason
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
			// Never read: it may be a link, a FIFO or gigabytes. Its
			// label says what it is; its flags, if any, follow.
			text := f.Hunks[0].Label
			if n := fileNotes(f); n != "" {
				text += " (" + n + ")"
			}
			out = append(out, sdk.ToolContent(sdk.TextBlock(text)))
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

// conflicted reports whether a hunk of set is pending with a conflict
// with the user's text.
func conflicted(set *changeset.Set) bool {
	for _, f := range set.Files() {
		for _, h := range f.Hunks {
			if h.Conflict != "" {
				return true
			}
		}
	}
	return false
}
