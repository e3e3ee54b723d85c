package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// A rename changes the width of a name, and gofmt aligns the fields of a
// struct literal by it: the renamed file is no longer formatted, and a
// model finds out turns later, if at all. rename_symbol, code_action and
// replace_symbol therefore ask the language server to format what they
// changed and fold its edits into the same change the user reviews.

// formatChanges returns cs with the language server's formatting of
// the changed parts folded in, and says in the answer's notes what was
// not formatted and why.
func (lt *langTools) formatChanges(ctx context.Context, cs []Change) []Change {
	f, ok := lt.lf.(LanguageFormatter)
	if !ok {
		return cs
	}
	out := make([]Change, 0, len(cs))
	for _, c := range cs {
		if c.Delete || c.Create || len(c.Edits) == 0 {
			out = append(out, c)
			continue
		}
		edits, err := f.Format(ctx, c.Path.Abs, c.Base.Content, c.After, changedRanges(c.Edits))
		var after []byte
		if err == nil && len(edits) > 0 {
			after, err = diff.Apply(c.After, edits)
		}
		switch {
		case errors.Is(err, ErrNoFormatter):
			noteAfter(ctx, fmt.Sprintf("the change is not formatted: %v", err))
		case errors.Is(err, ErrUnformatted):
			noteAfter(ctx, fmt.Sprintf("%s is not formatted: it was not formatted before, and its formatter formats only whole files", c.Path.Rel))
		case err != nil:
			if ctx.Err() == nil {
				noteAfter(ctx, fmt.Sprintf("%s is not formatted: %v", c.Path.Rel, err))
			}
		case after != nil && string(after) != string(c.After):
			c.After = after
			c.Edits = diff.LineEdits(c.Base.Content, after)
		}
		out = append(out, c)
	}
	return out
}

// changedRanges maps edits of a base to the byte ranges they write in
// the result.
func changedRanges(edits []TextEdit) [][2]int {
	out := make([][2]int, 0, len(edits))
	delta := 0
	for _, e := range edits {
		start := e.Start + delta
		out = append(out, [2]int{start, start + len(e.NewText)})
		delta += len(e.NewText) - (e.End - e.Start)
	}
	return out
}
