package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Workspace is the tools.Workspace of an editor session: reads see the
// editor's open buffers (unsaved text included) and the disk for the
// rest; writes never touch the disk but go to the editor as
// workspace/applyEdit, which the user reviews.
type Workspace struct {
	server *Server
	disk   tools.DiskWorkspace
	// chosen marks the Workspace of catbuddy.keep: the user already chose
	// what lands, so its applyEdit carries no change annotations (no
	// needsConfirmation); the rest, versions and merge included, is the
	// same.
	chosen bool
}

// keepWorkspace is the Workspace through which catbuddy.keep lands what
// the user chose.
func (s *Server) keepWorkspace() *Workspace {
	return &Workspace{server: s, disk: s.workspace.disk, chosen: true}
}

var (
	_ tools.Workspace    = (*Workspace)(nil)
	_ tools.BufferLister = (*Workspace)(nil)
)

// OpenBuffers implements tools.BufferLister: the open buffers inside the
// workspace folders, so that a run's command sees their unsaved text.
func (w *Workspace) OpenBuffers(ctx context.Context) []guard.Path {
	g := w.server.Guard()
	var out []guard.Path
	for _, path := range w.server.overlay.Paths() {
		if p, err := g.Resolve(path); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Read implements tools.Workspace.
func (w *Workspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	if b := w.server.overlay.reloaded(ctx, p.Abs); b != nil {
		if !b.InSync() {
			return tools.Document{}, fmt.Errorf("read %s: %w", p.Rel, ErrDesynced)
		}
		return bufferDocument(b.Snapshot()), nil
	}
	return w.disk.Read(ctx, p)
}

func bufferDocument(s Snapshot) tools.Document {
	return tools.Document{
		Content: s.Content,
		Stamp:   filestate.Stamp{Size: int64(len(s.Content)), Version: int64(s.Version)},
		Open:    true,
	}
}

// errNotLanded is wrapped when the editor said applied:true but the edit
// never showed up (Neovim does that for a stale edit).
var errNotLanded = errors.New("the editor reported the edit as applied but the buffer did not change")

// Apply implements tools.Workspace: it checks that the document still
// holds c.Base, sends the change as a workspace/applyEdit pinned to the
// buffer's version, one annotated edit per hunk, and waits until the
// buffer (or, for a closed file, an opened buffer or the disk) shows
// which hunks landed.
func (w *Workspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	docs, err := w.ApplyAll(ctx, []tools.Change{c})
	if err != nil {
		return tools.Document{}, err
	}
	return docs[0], nil
}

// ApplyAll implements tools.MultiApplier: every change is checked
// against the editor's buffers (or the disk) first, then all of them go
// to the editor as ONE workspace/applyEdit, so the user reviews a
// multi-file change once (the Workspace of catbuddy.keep: applies what
// the user chose, without asking again).
func (w *Workspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, nil
	}
	s := w.server
	label := cs[0].Label
	if len(cs) > 1 || label == "" {
		label = "cb-ls: " + changedNames(cs)
	}
	names := changedNames(cs)
	// Each pass pins the changes to the buffers as they are, merging
	// them over what the user typed since they were made (stale.go); a
	// pass the editor refuses because a buffer moved on again is
	// followed by another, up to maxMergePasses.
	for pass := 1; ; pass++ {
		sent, targets, merged, err := w.pinAll(ctx, cs)
		if err != nil {
			return nil, err
		}
		edit := w.buildEdit(sent, targets, !w.chosen)
		if len(edit.DocumentChanges) == 0 {
			// Nothing to make (every change is already there): never ask
			// about an empty edit.
			return w.confirm(ctx, sent)
		}
		hashes := w.configHashes() // see recheckApplied
		l := label
		if slices.Contains(merged, true) {
			l += mergedLabel
			s.log.Info("edit merged over the user's typing", "files", names, "pass", pass)
		}
		var res *protocol.ApplyWorkspaceEditResult
		err = s.askUser(ctx, "the review of the edit to "+names, func(ctx context.Context) (err error) {
			res, err = s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &l, Edit: edit})
			return err
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, tools.ErrNoAnswer):
			// Withdrawn unanswered: a no, said as what it was.
			return nil, fmt.Errorf("%w: %s: %w", tools.ErrRejected, names, err)
		case err != nil:
			// Emacs eglot answers a refusal with a JSON-RPC error.
			return nil, fmt.Errorf("%w: the editor refused the edit to %s: %v%w", tools.ErrRejected, names, err, silent(errRefused))
		case res == nil || !res.Applied:
			stale := w.awaitStale(ctx, res, edit)
			s.log.Info("edit not applied", "files", names, "stale", stale, "pass", pass)
			if stale && pass < maxMergePasses {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if stale {
				return nil, fmt.Errorf("%w: %s: %s", tools.ErrRejected, names, keptTyping)
			}
			reason := "rejected by the user or editor"
			if res != nil && res.FailureReason != nil && *res.FailureReason != "" {
				reason = *res.FailureReason
			}
			return nil, fmt.Errorf("%w: %s: %s%w", tools.ErrRejected, names, reason, silent(errRefused))
		}
		if err := w.recheckApplied(ctx, sent, targets, hashes); err != nil {
			return nil, err
		}
		docs, err := w.confirm(ctx, sent)
		for i := range docs {
			if merged[i] {
				docs[i].Merged = &sent[i]
			}
		}
		return docs, err
	}
}

// errRefused is wrapped when the editor answered the edit with a refusal
// (the user said no, or the editor could not apply it), as opposed to a
// change that never went out or was overtaken by typing.
var errRefused = errors.New("refused")

// silentErr adds err to a chain without adding to its message:
// errors.Is finds it, the model reads the same words as before.
type silentErr struct{ err error }

func (silentErr) Error() string   { return "" }
func (e silentErr) Unwrap() error { return e.err }

func silent(err error) error { return silentErr{err} }

// changedNames lists the files of cs for messages.
func changedNames(cs []tools.Change) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = diff.QuoteName(c.Path.Rel)
	}
	return strings.Join(names, ", ")
}

// pinned is where one change goes: the URI and the buffer version (nil
// for a file that is not open).
type pinned struct {
	uri     uri.URI
	version *int32
}

// pin returns where c goes and c as it is sent. For an open buffer that
// is the version it now has and, when the user typed since c was made,
// c merged over that typing (merged true; a conflict is an error that
// changes nothing). A file that is not open gets version nil and must
// still hold c.Base on disk.
func (w *Workspace) pin(ctx context.Context, c tools.Change) (tools.Change, pinned, bool, error) {
	if b, ok := w.server.overlay.ByPath(c.Path.Abs); ok {
		if !b.InSync() {
			return c, pinned{}, false, fmt.Errorf("%w: %s: %w", tools.ErrRejected, c.Path.Rel, ErrDesynced)
		}
		if c.Create {
			return c, pinned{}, false, fmt.Errorf("%w: %s was created by someone else meanwhile", tools.ErrRejected, c.Path.Rel)
		}
		if same, v := b.Matches(c.Base.Content); same {
			return c, pinned{uri: b.URI, version: &v}, false, nil
		}
		snap := b.Snapshot()
		at := pinned{uri: b.URI, version: &snap.Version}
		m, err := tools.Rebase(c, bufferDocument(snap))
		if err != nil {
			return c, pinned{}, false, conflictError(c, err)
		}
		return m, at, true, nil
	}
	cur, err := w.disk.Read(ctx, c.Path)
	switch {
	case c.Create && err == nil:
		return c, pinned{}, false, fmt.Errorf("%w: %s was created by someone else meanwhile", tools.ErrRejected, c.Path.Rel)
	case c.Create && errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, pinned{}, false, err
	case !bytes.Equal(cur.Content, c.Base.Content):
		return c, pinned{}, false, fmt.Errorf("%w: %s changed on disk since it was read; read it again", tools.ErrRejected, c.Path.Rel)
	}
	return c, pinned{uri: fileuri.FromPath(c.Path.Abs)}, false, nil
}

// diskPoll is how often confirm looks at the disk for a file the editor
// did not open; buffer changes wake it at once.
const diskPoll = 25 * time.Millisecond

// confirm waits, up to the grace period, until every change shows in
// the editor: its buffer (or, for a file that is not open, the disk)
// holds c.After, or holds some of its hunks and not the others (the
// user accepted hunk by hunk), or the file is gone for a delete.
// applied:true alone is not proof (Neovim's own handler reports a
// skipped stale edit as applied). A change still not seen when the grace period ends was
// rejected entirely; if that is every change, the result is an error.
func (w *Workspace) confirm(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	s := w.server
	grace := time.NewTimer(s.opts.EditGrace)
	defer grace.Stop()
	poll := time.NewTicker(diskPoll)
	defer poll.Stop()
	docs := make([]tools.Document, len(cs))
	seen := make([]bool, len(cs))
	left := len(cs)
	for {
		changed := s.overlay.Changed()
		for i, c := range cs {
			if seen[i] {
				continue
			}
			if doc, ok := w.landed(ctx, c); ok {
				docs[i], seen[i] = doc, true
				left--
			}
		}
		if left == 0 {
			return docs, nil
		}
		select {
		case <-changed:
		case <-poll.C:
		case <-grace.C:
			if left == len(cs) {
				return nil, fmt.Errorf("%w: %s: %w", tools.ErrRejected, changedNames(cs), errNotLanded)
			}
			for i, c := range cs {
				if !seen[i] {
					docs[i] = c.Base
					docs[i].Rejected = allHunks(c)
				}
			}
			return docs, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// landed looks once at the file of c and reports whether the editor has
// made c, entirely or hunk by hunk, and the document as it now is.
func (w *Workspace) landed(ctx context.Context, c tools.Change) (tools.Document, bool) {
	s := w.server
	b, open := s.overlay.ByPath(c.Path.Abs)
	if c.Delete {
		_, err := w.disk.Read(ctx, c.Path)
		return tools.Document{}, !open && errors.Is(err, fs.ErrNotExist)
	}
	if !open {
		doc, err := w.disk.Read(ctx, c.Path)
		return doc, err == nil && bytes.Equal(doc.Content, c.After)
	}
	if same, _ := b.Matches(c.After); same {
		snap := b.Snapshot()
		return bufferDocument(snap), bytes.Equal(snap.Content, c.After) // else it changed again between the two looks
	}
	if c.Create || int64(b.Version()) == c.Base.Stamp.Version {
		return tools.Document{}, false
	}
	// The buffer moved on without becoming c.After: the user left some
	// hunks out, or typed right after the edit landed.
	snap := b.Snapshot()
	hunks, _ := diff.Landed(c.Base.Content, c.Edits, c.After, snap.Content)
	doc := bufferDocument(snap)
	for i, ok := range hunks {
		if !ok {
			doc.Rejected = append(doc.Rejected, i)
		}
	}
	// No hunk at all: not yet (a buffer the editor opened to apply the
	// edit shows its old text first) or not at all (the grace decides).
	return doc, len(doc.Rejected) < len(c.Edits)
}

// allHunks returns the indices of every edit of c.
func allHunks(c tools.Change) []int {
	out := make([]int, max(1, len(c.Edits)))
	for i := range out {
		out[i] = i
	}
	return out
}
