package lsp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// The stale-edit policy, the same for every editor. An edit is pinned to
// the buffer version the server knows; by the time the user has
// reviewed it they may have typed in that buffer (or had typed before,
// and the editor's didChange had not arrived yet). The editor does not
// apply such an edit: it answers applied:false with failedChange naming
// the TextDocumentEdit whose version moved on. The server then waits
// for the buffer to show the typing, merges the edit over it (the one
// three-way merge, tools.Rebase) and sends it again, pinned to the new
// version, for a new review. Where the typing touches the edit's lines
// nothing is sent and the model is told; the user's text is never
// overwritten. Clients merge nothing themselves.

// maxMergePasses bounds how often one edit is sent while the user keeps
// typing in its file.
const maxMergePasses = 4

// staleQuiet is how long a buffer must go without a didChange before a
// stale edit is merged over it: Neovim sends didChange after a quiet
// spell of its own (150 ms), so the typing is complete by then.
const staleQuiet = 250 * time.Millisecond

// staleSettle bounds the wait for that quiet spell.
const staleSettle = 3 * time.Second

// mergedLabel is added to the label of an edit sent again merged over
// the user's typing, so the second review says why it is there.
const mergedLabel = " (merged with your typing)"

// keptTyping is the model's reason when the user kept typing through
// every pass.
const keptTyping = "the user kept typing in the file while the edit waited, so it was never applied; the user's text is as they typed it. Read the file again and redo the edit on what it holds now if it is still needed"

// pinAll pins every change (pin) and returns them as they are to be
// sent, with which were merged over the user's typing.
func (w *Workspace) pinAll(ctx context.Context, cs []tools.Change) ([]tools.Change, []pinned, []bool, error) {
	sent := make([]tools.Change, len(cs))
	targets := make([]pinned, len(cs))
	merged := make([]bool, len(cs))
	for i, c := range cs {
		var err error
		sent[i], targets[i], merged[i], err = w.pin(ctx, c)
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return sent, targets, merged, nil
}

// conflictError is the model's error for a change whose merge over the
// user's typing failed.
func conflictError(c tools.Change, err error) error {
	var ce *tools.ConflictError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %s changed in the editor while the edit waited, and the user's changes touch the lines this edit changes (its hunk %d, line %d of the file as read). Nothing was changed; the user's text is kept. Read %s again and redo the edit on what it holds now if it is still needed",
			tools.ErrRejected, c.Path.Rel, ce.Hunk+1, ce.Line, c.Path.Rel)
	}
	return fmt.Errorf("%w: %s changed in the editor while the edit waited: %v", tools.ErrRejected, c.Path.Rel, err)
}

// awaitStale reports whether res refuses edit because a buffer it is
// pinned to moved on: failedChange names a version-pinned
// TextDocumentEdit and the server's buffer leaves that version (within
// the edit grace; the editor's didChange may still be on its way). It
// then waits until the buffer is quiet, so the next pass merges over
// all of the typing.
func (w *Workspace) awaitStale(ctx context.Context, res *protocol.ApplyWorkspaceEditResult, edit protocol.WorkspaceEdit) bool {
	if res == nil || res.FailedChange == nil || int(*res.FailedChange) >= len(edit.DocumentChanges) {
		return false
	}
	tde, ok := edit.DocumentChanges[*res.FailedChange].(*protocol.TextDocumentEdit)
	if !ok || tde.TextDocument.Version == nil {
		return false
	}
	o := w.server.overlay
	pinnedAt := *tde.TextDocument.Version
	moved := time.NewTimer(w.server.opts.EditGrace)
	defer moved.Stop()
	for {
		changed := o.Changed()
		b, open := o.Get(tde.TextDocument.URI)
		if !open {
			return false // closed meanwhile: there is nothing to merge over
		}
		if b.Version() != pinnedAt {
			break
		}
		select {
		case <-changed:
		case <-moved.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	settle := time.NewTimer(staleSettle)
	defer settle.Stop()
	for {
		changed := o.Changed()
		quiet := time.NewTimer(staleQuiet)
		select {
		case <-changed:
			quiet.Stop()
		case <-quiet.C:
			return true
		case <-settle.C:
			quiet.Stop()
			return true
		case <-ctx.Done():
			quiet.Stop()
			return false
		}
	}
}
