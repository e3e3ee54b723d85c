package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// annotationPrefix starts the id of every change annotation cb-ls sends;
// each hunk has its own ("cb-ls.agent-edit.2.1": change 2, hunk 1), so
// that VS Code's Refactor Preview lists the hunks with their own
// checkboxes and labels ("calc.go: lines 40–44").
const annotationPrefix = "cb-ls.agent-edit"

// buildEdit turns cs into one WorkspaceEdit's documentChanges: for each
// change a CreateFile (new file that is not open) or DeleteFile, and one
// TextDocumentEdit pinned to its target's version with one edit per hunk.
// Edits carry a change annotation (needsConfirmation) when review is
// asked for and the client supports them, and then the annotations map is always sent too
// (Neovim 0.12 aborts an edit whose annotation id is not in it).
func (w *Workspace) buildEdit(cs []tools.Change, targets []pinned, review bool) protocol.WorkspaceEdit {
	s := w.server
	enc := s.PositionEncoding()
	annotate := review && s.supportsAnnotations()
	annotations := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{}
	note := func(id, label string) protocol.ChangeAnnotationIdentifier {
		if !annotate {
			return ""
		}
		yes := true
		desc := "Proposed by the cb-ls agent"
		annotations[protocol.ChangeAnnotationIdentifier(id)] = protocol.ChangeAnnotation{Label: label, NeedsConfirmation: &yes, Description: &desc}
		return protocol.ChangeAnnotationIdentifier(id)
	}
	var changes []protocol.DocumentChange
	for i, c := range cs {
		t := targets[i]
		id := fmt.Sprintf("%s.%d", annotationPrefix, i+1)
		switch {
		case c.Delete:
			df := &protocol.DeleteFile{Kind: "delete", URI: t.uri}
			df.ResourceOperation.Kind = "delete"
			df.ResourceOperation.AnnotationID = note(id, "Delete "+c.Path.Rel)
			changes = append(changes, df)
			continue
		case c.Create && t.version == nil:
			cf := &protocol.CreateFile{Kind: "create", URI: t.uri}
			cf.ResourceOperation.Kind = "create"
			cf.ResourceOperation.AnnotationID = note(id, "Create "+c.Path.Rel)
			changes = append(changes, cf)
		}
		var edits []protocol.TextDocumentEditElement
		if c.Create {
			if len(c.After) > 0 {
				edits = append(edits, textEdit(protocol.Range{}, string(c.After), note(id+".1", "Create "+c.Path.Rel)))
			}
		} else {
			for j, e := range c.Edits {
				label := diff.HunkLabel(c.Path.Rel, c.Base.Content, e)
				edits = append(edits, textEdit(RangeOf(c.Base.Content, e.Start, e.End, enc), e.NewText, note(fmt.Sprintf("%s.%d", id, j+1), label)))
			}
		}
		if len(edits) > 0 {
			changes = append(changes, &protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
					TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: t.uri},
					Version:                t.version,
				},
				Edits: edits,
			})
		}
	}
	edit := protocol.WorkspaceEdit{DocumentChanges: changes}
	if annotate {
		edit.ChangeAnnotations = annotations
	}
	return edit
}

// textEdit is an AnnotatedTextEdit when id is set, a plain TextEdit
// otherwise.
func textEdit(r protocol.Range, text string, id protocol.ChangeAnnotationIdentifier) protocol.TextDocumentEditElement {
	te := protocol.TextEdit{Range: r, NewText: text}
	if id != "" {
		return &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: id}
	}
	return &te
}
