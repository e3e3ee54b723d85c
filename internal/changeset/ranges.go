package changeset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// InText returns f's hunks with their Edit moved onto the file's text
// as ws has it now (the editor's buffer, with the user's typing since
// the run touched the file), which is where a front end shows them: a
// hunk the typing touches keeps its base offsets and gets Conflict set.
// A group, a created or deleted file, and a file whose text is the base
// come back as they are. ws is read outside the set's lock.
func (s *Set) InText(ctx context.Context, f File, ws tools.Workspace) ([]Hunk, error) {
	if f.Group != nil || f.Whole != nil || f.Kind != KindChanged {
		return f.Hunks, nil
	}
	s.mu.Lock()
	fo := s.folders[f.Path.Root]
	var base []byte
	var err error
	if fo != nil {
		base, err = fo.baseText(ctx, f.Path.Rel)
	}
	s.mu.Unlock()
	if fo == nil || err != nil {
		return f.Hunks, err
	}
	cur, err := ws.Read(ctx, f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		out := append([]Hunk(nil), f.Hunks...)
		for i := range out {
			out[i].Conflict = fmt.Sprintf("%s was deleted or renamed while the change was pending", f.Path.Rel)
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if string(cur.Content) == string(base) {
		return f.Hunks, nil
	}
	out := append([]Hunk(nil), f.Hunks...)
	for i, h := range out {
		moved, _, ok := diff.RebaseEdits(base, []diff.Edit{h.Edit}, cur.Content)
		if !ok {
			first, last := diff.HunkLines(base, h.Edit)
			out[i].Conflict = fmt.Sprintf("%s: the user changed lines at or next to %s", f.Path.Rel, diff.LineSpan(first, last))
			continue
		}
		out[i].Edit = moved[0]
	}
	return out, nil
}
