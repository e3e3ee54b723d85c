package tools

import (
	"context"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// ReadText returns the current text of path — the editor's buffer when
// it is open, the disk otherwise — admitted by the PathGuard. It is how
// the agent reads project files for its own context (rules files,
// @-mentions): the same way the tools read, so nothing the tools may not
// see (.catbuddy/, files outside the roots) reaches the model that way.
func (tc *ToolContext) ReadText(ctx context.Context, path string) (guard.Path, []byte, error) {
	p, doc, err := tc.openDoc(ctx, path)
	if err != nil {
		return p, nil, err
	}
	if safefile.LooksBinary(doc.Content) {
		return p, nil, fmt.Errorf("read %s: a binary file, not text", p.Rel)
	}
	return p, doc.Content, nil
}
