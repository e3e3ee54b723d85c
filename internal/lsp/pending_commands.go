package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// registerPendingCommands installs catbuddy.keep, catbuddy.discard and
// catbuddy.pendingChanges. Any client may call them; a client with the
// pendingChanges capability is told of the result by notification too.
func (rs *runs) registerPendingCommands() {
	s := rs.s
	s.registerCommand(CmdKeep, rs.keepCommand)
	s.registerCommand(CmdDiscard, rs.discardCommand)
	s.registerCommand(CmdPendingChanges, rs.pendingCommand)
}

// selectionOf decodes a keep or discard argument into the run's set and
// the changeset.Selection it names.
func (rs *runs) selectionOf(args []json.RawMessage) (*changeset.Set, changeset.Selection, error) {
	var a selectionArgs
	if err := oneArg(args, &a); err != nil {
		return nil, changeset.Selection{}, err
	}
	if a.RunID == "" {
		return nil, changeset.Selection{}, invalidParams("missing runId: the run whose changes to act on (catbuddy.pendingChanges lists them)")
	}
	set, err := rs.pendingSet(a.RunID)
	if err != nil {
		return nil, changeset.Selection{}, err
	}
	how, err := changeset.ParseResolution(a.Conflicts)
	if err != nil {
		return nil, changeset.Selection{}, invalidParams("conflicts: %v", err)
	}
	sel := changeset.Selection{Hunks: a.Hunks, Conflicts: how}
	for _, u := range a.Files {
		p, err := rs.s.pathOfURI(u)
		if err != nil {
			return nil, changeset.Selection{}, invalidParams("%s: %v", u, err)
		}
		sel.Files = append(sel.Files, p)
	}
	return set, sel, nil
}

// pendingSet returns run id's set, or an error saying there is none.
func (rs *runs) pendingSet(id string) (*changeset.Set, error) {
	st := rs.s.pendingStore()
	if st == nil {
		return nil, fmt.Errorf("no pending changes here: no workspace folder holds them")
	}
	set, ok := st.Get(id)
	if !ok || set.Count() == 0 {
		return nil, fmt.Errorf("run %q has no pending changes (catbuddy.pendingChanges lists the runs that have)", id)
	}
	return set, nil
}

// pathOfURI admits the file u names through the guard; an open buffer's
// URI is the editor's own spelling of its path.
func (s *Server) pathOfURI(u uri.URI) (guard.Path, error) {
	path := ""
	if b, ok := s.overlay.Get(u); ok {
		path = b.Snapshot().Path
	} else {
		p, err := fileuri.ToPath(u)
		if err != nil {
			return guard.Path{}, err
		}
		path = p
	}
	return s.Guard().Resolve(path)
}

// keepCommand handles catbuddy.keep: the chosen hunks go to the editor
// as ONE workspace/applyEdit the user does not review again (they just
// chose), merged over whatever they typed since.
func (rs *runs) keepCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	set, sel, err := rs.selectionOf(args)
	if err != nil {
		return nil, err
	}
	res, err := set.Keep(rs.ledgerContext(ctx, set.RunID()), sel, rs.s.keepWorkspace())
	if err != nil {
		return nil, fmt.Errorf("keep the changes of run %s: %w", set.RunID(), err)
	}
	out := KeepResult{Kept: nonNil(res.Kept), Left: []LeftHunk{}, Resolved: []ResolvedHunk{}}
	for _, l := range res.Left {
		out.Left = append(out.Left, LeftHunk{Hunk: l.Hunk, Reason: l.Reason})
	}
	for _, r := range res.Resolved {
		out.Resolved = append(out.Resolved, ResolvedHunk{Hunk: r.Hunk, As: string(r.How)})
	}
	rs.s.log.Info("pending changes kept", "run", set.RunID(), "kept", len(out.Kept), "left", len(out.Left), "resolved", len(out.Resolved))
	return out, nil
}

// discardCommand handles catbuddy.discard: the chosen hunks are dropped
// from the run's set; the user's files never saw them.
func (rs *runs) discardCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	set, sel, err := rs.selectionOf(args)
	if err != nil {
		return nil, err
	}
	gone, err := set.Discard(sel)
	if err != nil {
		return nil, fmt.Errorf("discard the changes of run %s: %w", set.RunID(), err)
	}
	rs.s.log.Info("pending changes discarded", "run", set.RunID(), "discarded", len(gone))
	return DiscardResult{Discarded: nonNil(gone)}, nil
}

// pendingCommand handles catbuddy.pendingChanges {runId?}: every run with
// pending changes, newest first, or the one named.
func (rs *runs) pendingCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	id, err := optionalRunID(args)
	if err != nil {
		return nil, err
	}
	out := PendingList{Runs: []PendingRun{}}
	st := rs.s.pendingStore()
	if st == nil {
		return out, nil
	}
	sets := st.Pending()
	if id != "" {
		sets = nil
		if set, ok := st.Get(id); ok && set.Count() > 0 {
			sets = []*changeset.Set{set}
		}
	}
	for _, set := range sets {
		out.Runs = append(out.Runs, PendingRun{RunID: set.RunID(), Title: set.Title(), Files: rs.s.pendingFiles(ctx, set)})
	}
	return out, nil
}

// ledgerContext gives ctx run id's undo ledger, so that what a keep
// lands can be undone with catbuddy.undoRun like any edit of the run. A
// run of an earlier process gets a new ledger here.
func (rs *runs) ledgerContext(ctx context.Context, id string) context.Context {
	rs.mu.Lock()
	led, ok := rs.byRun[id]
	if !ok {
		led = filestate.NewLedger()
		rs.keepLedger(id, led)
	}
	rs.mu.Unlock()
	return filestate.NewLedgerContext(ctx, led)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
