package tools

import (
	"context"
	"strings"
)

// readWarning is the warning an edit by tool of the file at abs gets
// when the run never read it: the tool is named (a model calling several
// at once must know which one warned), and the reason given is the
// tool's own (old_string means nothing to apply_patch).
func (tc *ToolContext) readWarning(ctx context.Context, tool, abs string) string {
	w := tc.FileStates(ctx).CheckRead(abs)
	if w == "" {
		return ""
	}
	w = strings.Replace(w, "Warning:", "Warning ("+tool+"):", 1)
	switch tool {
	case "edit_file", "multi_edit":
		w = strings.TrimSuffix(w, ".") + ", so that old_string matches what is really there."
	case "apply_patch":
		w = strings.TrimSuffix(w, ".") + ", so that the patch's context lines match what is really there."
	}
	return w
}
