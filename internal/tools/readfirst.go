package tools

import (
	"context"
	"strings"
	"unicode/utf8"
)

// readWarning is the warning an edit by tool of the file at abs gets
// when the run never read it: the tool is named (a model calling several
// at once must know which one warned).
func (tc *ToolContext) readWarning(ctx context.Context, tool, abs string) string {
	states := tc.FileStates(ctx)
	if cmd := states.ChangedBy(abs); cmd != "" {
		// Read, then rewritten by a command: the edit found its old text
		// in the file as the command left it (it fails otherwise, with
		// changedByNote).
		what := "old_string still matched"
		if tool == "apply_patch" {
			what = "the patch's context still matched"
		}
		return "Note (" + tool + "): " + commandWords(cmd) + " changed this file after you read it; " + what + ", so the edit applied to the file as the command left it."
	}
	if states.CheckRead(abs) == "" {
		return ""
	}
	// The rule (read before editing) is the system prompt's: the
	// warning says only that it was broken, and by which tool.
	return "Warning (" + tool + "): this file was not read in this session before this edit."
}

// changedByNote is what a failed edit adds when a command changed the
// file since the run read it: the likely reason old text is not there.
func (tc *ToolContext) changedByNote(ctx context.Context, abs string) string {
	cmd := tc.FileStates(ctx).ChangedBy(abs)
	if cmd == "" {
		return ""
	}
	return "\n" + commandWords(cmd) + " changed this file after you read it: read it again before editing."
}

// commandWords names a command for a sentence: `cargo fmt`, its first
// line only and at most 60 bytes.
func commandWords(cmd string) string {
	cmd, _, cut := strings.Cut(strings.TrimSpace(cmd), "\n")
	if len(cmd) > 60 {
		cmd, cut = cmd[:57], true
		for !utf8.ValidString(cmd) {
			cmd = cmd[:len(cmd)-1]
		}
	}
	if cut {
		cmd += "…"
	}
	return "`" + cmd + "`"
}
