package tools

import (
	"context"
	"errors"
	"io/fs"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// Document is one state of a file as the Workspace sees it.
type Document struct {
	Content []byte
	// Stamp identifies this state (disk mtime and size, or buffer version).
	Stamp filestate.Stamp
	// Mode is the file's permission bits (disk); 0 for a new file.
	Mode fs.FileMode
	// Open reports whether the content came from an editor buffer.
	Open bool
	// Rejected, in a Document returned by Apply, lists the indices of
	// the Change's Edits that did not land: the user accepted the change
	// hunk by hunk and left these out. Empty when every edit landed.
	Rejected []int
	// Merged, in a Document returned by Apply, is set when the file
	// changed after the change was made and the Workspace merged the two
	// (Rebase): the change as it was applied, with the user's text as
	// its Base and the same edits, moved. Rejected indexes these edits.
	Merged *Change
}

// TextEdit replaces Content[Start:End] of a base document with NewText.
// Offsets are bytes; the LSP layer converts them to positions. It is
// diff.Edit, so the diff, hunk and merge code works on the tools' edits.
type TextEdit = diff.Edit

// Change is one write a tool wants to make.
type Change struct {
	Path guard.Path
	// Base is the state the edits were computed against; Create is true
	// (and Base empty) when the file does not exist yet.
	Base   Document
	Create bool
	// Delete removes the file (Base is its current content, Edits and
	// After are empty): an undo of a file the run created.
	Delete bool
	// Edits are sorted, non-overlapping and apply to Base.Content.
	Edits []TextEdit
	// After is Base.Content with Edits applied: the full new content.
	After []byte
	// Label is a short human description ("edit_file calc.go").
	Label string
	// Moved is the other file of a rename (apply_patch's *** Move to),
	// made of a Delete of the old file and a Create of the new one: the
	// new file on the Delete, the old one on the Create. The result then
	// diffs the new file against the old.
	Moved string
	// Verbatim says the new text is the model's own, as it sent it, put
	// where it said: the result then names the changed lines instead of
	// echoing them. A tool leaves it false where it placed or wrote the
	// text itself (a hunk found by a loose match, a language server's
	// rename), and the result shows the diff.
	Verbatim bool
}

// ErrNotExist is returned by Workspace.Read for a missing file.
var ErrNotExist = fs.ErrNotExist

// ErrRejected wraps a change the editor or the user refused; the tool
// tells the model the edit was not applied.
var ErrRejected = errors.New("edit not applied")

// Workspace is how tools read and write documents.
type Workspace interface {
	// Read returns the current document at p: the editor buffer if the
	// editor has it open, the disk otherwise. A missing file is an error
	// wrapping ErrNotExist.
	Read(ctx context.Context, p guard.Path) (Document, error)
	// Apply makes c real (atomically on disk, or through the editor) and
	// returns the new state. If the file no longer matches c.Base it must
	// refuse rather than overwrite someone else's change.
	Apply(ctx context.Context, c Change) (Document, error)
}

// MultiApplier is a Workspace that can make changes to several files as
// one: one review in the editor (one workspace/applyEdit), all or
// nothing on disk. apply_patch and the undo of a run need it; Workspaces
// without it get the changes one by one.
type MultiApplier interface {
	// ApplyAll checks every change's base before anything is written,
	// then applies them together and returns each file's new state, in
	// order (a deleted file's Document is empty). A change the user
	// rejected entirely has every edit in Rejected; only when nothing at
	// all landed is the result an error wrapping ErrRejected.
	ApplyAll(ctx context.Context, cs []Change) ([]Document, error)
}

// ApplyAll applies cs through ws as one change where ws supports it,
// and one file after another otherwise (stopping at the first failure;
// the changes before it stay applied and are in the result).
func ApplyAll(ctx context.Context, ws Workspace, cs []Change) ([]Document, error) {
	if m, ok := ws.(MultiApplier); ok {
		return m.ApplyAll(ctx, cs)
	}
	docs := make([]Document, 0, len(cs))
	for _, c := range cs {
		d, err := ws.Apply(ctx, c)
		if err != nil {
			return docs, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}
