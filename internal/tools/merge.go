package tools

import (
	"errors"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// A Change carried over what the user typed meanwhile, by the one
// three-way merge of cb-ls (diff.RebaseEdits): the user's text and the
// agent's hunks are both kept when they do not touch, and nothing is
// merged when they do.

// ErrConflict is wrapped by Rebase's error when the other changes touch
// the change's own lines.
var ErrConflict = errors.New("the changes overlap")

// ConflictError names where a merge failed.
type ConflictError struct {
	Path string // workspace-relative
	Hunk int    // index of the change's edit that the other changes touch
	Line int    // 1-based line of that edit in the change's base
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: the changes made to it meanwhile touch the lines this edit changes (line %d)", e.Path, e.Line)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Rebase returns c carried over to cur, the document as it now is after
// someone else changed c.Base: Base becomes cur, each edit moves to
// where its lines are in cur (the same edits, in the same order, so a
// per-hunk answer about the result is an answer about c's hunks), and
// After is cur with them applied. It fails with a *ConflictError when a
// change from c.Base to cur touches a line an edit of c changes, and
// refuses file creations and deletions, which have nothing to merge.
func Rebase(c Change, cur Document) (Change, error) {
	if c.Create || c.Delete {
		return Change{}, fmt.Errorf("%w: %s was created or deleted meanwhile", ErrConflict, c.Path.Rel)
	}
	edits, at, ok := diff.RebaseEdits(c.Base.Content, c.Edits, cur.Content)
	if !ok {
		return Change{}, &ConflictError{Path: c.Path.Rel, Hunk: at.Hunk, Line: at.Line}
	}
	after, err := diff.Apply(cur.Content, edits)
	if err != nil {
		return Change{}, fmt.Errorf("merge %s: %w", c.Path.Rel, err)
	}
	out := c
	out.Base, out.Edits, out.After = cur, edits, after
	return out, nil
}
