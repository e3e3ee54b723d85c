package fake

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// ApplyHandler answers one workspace/applyEdit.
type ApplyHandler func(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult

// SetApplyEdit installs h for the following applyEdit requests.
func (e *Editor) SetApplyEdit(h ApplyHandler) {
	e.mu.Lock()
	e.onApply = h
	e.mu.Unlock()
}

// Accept applies the edit as the cb-ls clients do: all or nothing, and
// an edit pinned to a version the buffer no longer has is refused with
// failedChange naming it (the stale-edit contract, docs/PROTOCOL.md).
func Accept(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
	return e.ApplyWorkspaceEdit(p)
}

// Reject answers applied:false with reason ("" sends no reason, like VS
// Code's cancelled preview).
func Reject(reason string) ApplyHandler {
	return func(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		r := &protocol.ApplyWorkspaceEditResult{Applied: false}
		if reason != "" {
			r.FailureReason = &reason
		}
		return r
	}
}

// Lie answers applied:true and changes nothing, as Neovim does for an
// edit it skipped as stale.
func Lie(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
	return &protocol.ApplyWorkspaceEditResult{Applied: true}
}

// Delay holds the edit until release is closed (or receives), then lets
// then answer it: the user taking time to review.
func Delay(release <-chan struct{}, then ApplyHandler) ApplyHandler {
	return func(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		<-release
		return then(e, p)
	}
}

// AcceptHunks applies only the annotated edits and file operations whose
// annotation label keep returns true for, and every unannotated one, then
// answers applied:true: VS Code's Refactor Preview after the user
// unticked some of the changes.
func AcceptHunks(keep func(label string) bool) ApplyHandler {
	return func(e *Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		kept := func(id protocol.ChangeAnnotationIdentifier) bool {
			return id == "" || keep(p.Edit.ChangeAnnotations[id].Label)
		}
		q := *p
		q.Edit.DocumentChanges = nil
		for _, dc := range p.Edit.DocumentChanges {
			switch c := dc.(type) {
			case *protocol.CreateFile:
				if kept(c.ResourceOperation.AnnotationID) {
					q.Edit.DocumentChanges = append(q.Edit.DocumentChanges, c)
				}
			case *protocol.DeleteFile:
				if kept(c.ResourceOperation.AnnotationID) {
					q.Edit.DocumentChanges = append(q.Edit.DocumentChanges, c)
				}
			case *protocol.TextDocumentEdit:
				te := *c
				te.Edits = nil
				for _, el := range c.Edits {
					if a, ok := el.(*protocol.AnnotatedTextEdit); ok && !kept(a.AnnotationID) {
						continue
					}
					te.Edits = append(te.Edits, el)
				}
				if len(te.Edits) == 0 && len(c.Edits) > 0 {
					// Every edit of the document unticked: VS Code leaves the
					// document out (a file whose creation was unticked too
					// has nothing to edit).
					continue
				}
				q.Edit.DocumentChanges = append(q.Edit.DocumentChanges, &te)
			default:
				q.Edit.DocumentChanges = append(q.Edit.DocumentChanges, dc)
			}
		}
		return e.ApplyWorkspaceEdit(&q)
	}
}

// ApplyWorkspaceEdit applies p like VS Code: every documentChange is
// checked first (versions, CreateFile conflicts, annotation ids) and then
// applied in order; buffers not open are opened from disk (didOpen) and
// left unsaved; CreateFile creates an empty file on disk.
func (e *Editor) ApplyWorkspaceEdit(p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
	fail := func(i int, err error) *protocol.ApplyWorkspaceEditResult {
		msg := err.Error()
		n := uint32(i)
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &msg, FailedChange: &n}
	}
	if p.Edit.Changes != nil {
		return fail(0, errors.New("fake editor: expected documentChanges, got changes"))
	}
	created := map[uri.URI]bool{}
	for i, dc := range p.Edit.DocumentChanges {
		if err := e.check(p, dc, created); err != nil {
			return fail(i, err)
		}
	}
	for i, dc := range p.Edit.DocumentChanges {
		if err := e.apply(dc); err != nil {
			return fail(i, err)
		}
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}
}

// check validates one change without applying it.
func (e *Editor) check(p *protocol.ApplyWorkspaceEditParams, dc protocol.DocumentChange, created map[uri.URI]bool) error {
	annotated := func(id protocol.ChangeAnnotationIdentifier) error {
		if id == "" {
			return nil
		}
		if _, ok := p.Edit.ChangeAnnotations[id]; !ok {
			// Neovim 0.12 aborts the whole edit in this case.
			return fmt.Errorf("annotation %q is not in changeAnnotations", id)
		}
		return nil
	}
	switch c := dc.(type) {
	case *protocol.CreateFile:
		if err := annotated(c.ResourceOperation.AnnotationID); err != nil {
			return err
		}
		path, err := fileuri.ToPath(c.URI)
		if err != nil {
			return err
		}
		_, statErr := os.Stat(path)
		if statErr == nil || e.IsOpen(c.URI) {
			if c.Options == nil || (c.Options.Overwrite == nil && c.Options.IgnoreIfExists == nil) {
				return fmt.Errorf("file %s already exists", path)
			}
		}
		created[c.URI] = true
	case *protocol.DeleteFile:
		if err := annotated(c.ResourceOperation.AnnotationID); err != nil {
			return err
		}
		path, err := fileuri.ToPath(c.URI)
		if err != nil {
			return err
		}
		if _, err := os.Stat(path); err != nil && !e.IsOpen(c.URI) {
			return fmt.Errorf("cannot delete %s: %v", c.URI, err)
		}
	case *protocol.TextDocumentEdit:
		u := c.TextDocument.URI
		path, err := fileuri.ToPath(u)
		if err != nil {
			return err
		}
		e.mu.Lock()
		b, open := e.buffers[u]
		var version int32
		if open {
			version = b.version
		}
		e.mu.Unlock()
		if c.TextDocument.Version != nil {
			if !open || *c.TextDocument.Version != version {
				return fmt.Errorf("version mismatch for %s: edit is for %d, buffer is at %d", u, *c.TextDocument.Version, version)
			}
		} else if !open && !created[u] {
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("cannot edit %s: %v", u, err)
			}
		}
		for _, el := range c.Edits {
			if a, ok := el.(*protocol.AnnotatedTextEdit); ok {
				if err := annotated(a.AnnotationID); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("fake editor: unsupported document change %T", dc)
	}
	return nil
}

// apply applies one checked change.
func (e *Editor) apply(dc protocol.DocumentChange) error {
	switch c := dc.(type) {
	case *protocol.CreateFile:
		path, err := fileuri.ToPath(c.URI)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return err
		}
	case *protocol.DeleteFile:
		// VS Code closes the file's editor and deletes it from disk.
		if e.IsOpen(c.URI) {
			e.CloseFile(c.URI)
		}
		path, err := fileuri.ToPath(c.URI)
		if err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	case *protocol.TextDocumentEdit:
		u := c.TextDocument.URI
		if !e.IsOpen(u) {
			path, err := fileuri.ToPath(u)
			if err != nil {
				return err
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			e.OpenText(path, string(content))
		}
		var edits []protocol.TextEdit
		for _, el := range c.Edits {
			switch x := el.(type) {
			case *protocol.TextEdit:
				edits = append(edits, *x)
			case *protocol.AnnotatedTextEdit:
				edits = append(edits, x.TextEdit)
			default:
				return fmt.Errorf("fake editor: unsupported edit %T", el)
			}
		}
		e.applyTextEdits(u, edits)
	}
	return nil
}

// applyTextEdits applies edits to the buffer and sends them as one
// didChange (last edit first, so each range is valid when applied).
func (e *Editor) applyTextEdits(u uri.URI, edits []protocol.TextEdit) {
	e.mu.Lock()
	b := e.buffers[u]
	ordered := editsDescending(b.text, edits)
	var changes []protocol.TextDocumentContentChangeEvent
	for _, ed := range ordered {
		s, en := Offset(b.text, ed.Range.Start), Offset(b.text, ed.Range.End)
		b.text = b.text[:s] + ed.NewText + b.text[en:]
		changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: ed.Range, Text: ed.NewText})
	}
	b.version++
	v := b.version
	e.wake()
	e.mu.Unlock()
	if len(changes) == 0 {
		return
	}
	// This runs on a request goroutine, where a failed send must not
	// Fatalf; the server then never sees the change, which tests catch.
	if err := e.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: changes,
	}); err != nil {
		e.t.Logf("fake editor: didChange for an applied edit not sent: %v", err)
	}
}
