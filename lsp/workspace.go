package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/filestate"
	"github.com/catbuddy/cb-ls/guard"
	"github.com/catbuddy/cb-ls/tools"
)

// Workspace is the tools.Workspace of an editor session: reads see the
// editor's open buffers (unsaved text included) and the disk for the
// rest; writes never touch the disk but go to the editor as
// workspace/applyEdit, which the user reviews.
type Workspace struct {
	server *Server
	disk   tools.DiskWorkspace
}

var _ tools.Workspace = (*Workspace)(nil)

// Read implements tools.Workspace.
func (w *Workspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	if b, ok := w.server.overlay.ByPath(p.Abs); ok {
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

// annotationID labels every change cb-ls sends.
const annotationID = "cb-ls.agent-edit"

// errNotLanded is wrapped when the editor said applied:true but the edit
// never showed up (Neovim does that for a stale edit).
var errNotLanded = errors.New("the editor reported the edit as applied but the buffer did not change")

// Apply implements tools.Workspace: it checks that the document still
// holds c.Base, sends the change as a workspace/applyEdit pinned to the
// buffer's version, and waits until the buffer (or, for a closed file,
// an opened buffer or the disk) holds c.After.
func (w *Workspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	if err := ctx.Err(); err != nil {
		return tools.Document{}, err
	}
	s := w.server
	target, version, err := w.pin(ctx, c)
	if err != nil {
		return tools.Document{}, err
	}
	edit := w.buildEdit(c, target, version)
	label := c.Label
	if label == "" {
		label = "cb-ls: " + c.Path.Rel
	}
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit})
	switch {
	case err != nil && ctx.Err() != nil:
		return tools.Document{}, ctx.Err()
	case err != nil:
		// Emacs eglot answers a refusal with a JSON-RPC error.
		return tools.Document{}, fmt.Errorf("%w: the editor refused the edit to %s: %v", tools.ErrRejected, c.Path.Rel, err)
	case res == nil || !res.Applied:
		reason := "rejected by the user or editor"
		if res != nil && res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		return tools.Document{}, fmt.Errorf("%w: %s: %s", tools.ErrRejected, c.Path.Rel, reason)
	}
	return w.confirm(ctx, c)
}

// pin checks c.Base against the current document and returns the URI to
// edit and the version to pin (nil for a file that is not open).
func (w *Workspace) pin(ctx context.Context, c tools.Change) (uri.URI, *int32, error) {
	if b, ok := w.server.overlay.ByPath(c.Path.Abs); ok {
		if !b.InSync() {
			return "", nil, fmt.Errorf("%w: %s: %w", tools.ErrRejected, c.Path.Rel, ErrDesynced)
		}
		same, v := b.Matches(c.Base.Content)
		if !same {
			return "", nil, fmt.Errorf("%w: %s changed in the editor since it was read; read it again", tools.ErrRejected, c.Path.Rel)
		}
		return b.URI, &v, nil
	}
	cur, err := w.disk.Read(ctx, c.Path)
	switch {
	case c.Create && err == nil:
		return "", nil, fmt.Errorf("%w: %s was created by someone else meanwhile", tools.ErrRejected, c.Path.Rel)
	case c.Create && errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", nil, err
	case !bytes.Equal(cur.Content, c.Base.Content):
		return "", nil, fmt.Errorf("%w: %s changed on disk since it was read; read it again", tools.ErrRejected, c.Path.Rel)
	}
	return uri.File(c.Path.Abs), nil, nil
}

// buildEdit turns c into documentChanges: a CreateFile for a new file
// that is not open, then one TextDocumentEdit pinned to version. Edits
// carry a change annotation (needsConfirmation) when the client supports
// them, and then the annotations map is always sent too.
func (w *Workspace) buildEdit(c tools.Change, target uri.URI, version *int32) protocol.WorkspaceEdit {
	s := w.server
	enc := s.PositionEncoding()
	annotate := s.supportsAnnotations()
	var changes []protocol.DocumentChange
	if c.Create && version == nil {
		cf := &protocol.CreateFile{Kind: "create", URI: target}
		cf.ResourceOperation.Kind = "create"
		if annotate {
			cf.ResourceOperation.AnnotationID = annotationID
		}
		changes = append(changes, cf)
	}
	var edits []protocol.TextDocumentEditElement
	if c.Create {
		if len(c.After) > 0 {
			edits = append(edits, textEdit(protocol.Range{}, string(c.After), annotate))
		}
	} else {
		for _, e := range c.Edits {
			edits = append(edits, textEdit(RangeOf(c.Base.Content, e.Start, e.End, enc), e.NewText, annotate))
		}
	}
	if len(edits) > 0 {
		changes = append(changes, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: target},
				Version:                version,
			},
			Edits: edits,
		})
	}
	edit := protocol.WorkspaceEdit{DocumentChanges: changes}
	if annotate {
		yes := true
		desc := "Proposed by the cb-ls agent"
		label := c.Label
		if label == "" {
			label = "Agent edit: " + c.Path.Rel
		}
		edit.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotationID: {Label: label, NeedsConfirmation: &yes, Description: &desc},
		}
	}
	return edit
}

func textEdit(r protocol.Range, text string, annotate bool) protocol.TextDocumentEditElement {
	te := protocol.TextEdit{Range: r, NewText: text}
	if annotate {
		return &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: annotationID}
	}
	return &te
}

// landContext is how much of the text around each edit must be found
// with it for landedAmid to count the edit as made.
const landContext = 24

// landedAmid reports whether every edit of c is in content together with
// landContext bytes of the text around it in c.After, although content
// as a whole is not c.After: the editor merged the edit with what the
// user typed meanwhile (the Neovim plugin rebases a reviewed edit over
// the typing). A skipped edit leaves the old text between that context,
// so it is not mistaken for a landed one.
func landedAmid(content []byte, c tools.Change) bool {
	if len(c.Edits) == 0 || c.Create {
		return false
	}
	shift := 0
	for _, e := range c.Edits {
		start := e.Start + shift // where the new text starts in c.After
		end := start + len(e.NewText)
		shift += len(e.NewText) - (e.End - e.Start)
		lo, hi := max(0, start-landContext), min(len(c.After), end+landContext)
		if lo >= hi || hi > len(c.After) || !bytes.Contains(content, c.After[lo:hi]) {
			return false
		}
	}
	return true
}

// diskPoll is how often confirm looks at the disk for a file the editor
// did not open; buffer changes wake it at once.
const diskPoll = 25 * time.Millisecond

// confirm waits, up to the grace period, until the edit is visible: the
// buffer holds c.After, or for a file that is not open, the disk does.
// applied:true alone is not proof (Neovim reports a skipped stale edit
// as applied).
func (w *Workspace) confirm(ctx context.Context, c tools.Change) (tools.Document, error) {
	s := w.server
	grace := time.NewTimer(s.opts.EditGrace)
	defer grace.Stop()
	poll := time.NewTicker(diskPoll)
	defer poll.Stop()
	for {
		changed := s.overlay.Changed()
		if b, ok := s.overlay.ByPath(c.Path.Abs); ok {
			if same, _ := b.Matches(c.After); same {
				snap := b.Snapshot()
				if bytes.Equal(snap.Content, c.After) {
					return bufferDocument(snap), nil
				}
				continue // changed again between the two looks
			}
			if int64(b.Version()) != c.Base.Stamp.Version {
				if snap := b.Snapshot(); landedAmid(snap.Content, c) {
					return bufferDocument(snap), nil
				}
			}
		} else if doc, err := w.disk.Read(ctx, c.Path); err == nil && bytes.Equal(doc.Content, c.After) {
			return doc, nil
		}
		select {
		case <-changed:
		case <-poll.C:
		case <-grace.C:
			return tools.Document{}, fmt.Errorf("%w: %s: %w", tools.ErrRejected, c.Path.Rel, errNotLanded)
		case <-ctx.Done():
			return tools.Document{}, ctx.Err()
		}
	}
}
