package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

//go:embed write.md
var writeFileDescription string

type writeFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// WriteFile is the write_file tool. Over an existing file it sends a
// minimal line diff rather than a whole-file replacement, so the editor
// shows the user only the lines that change.
func WriteFile(tc *ToolContext) Tool {
	return NewTool("write_file", writeFileDescription, func(ctx context.Context, in writeFileInput) (Result, error) {
		return tc.writeFile(ctx, in)
	})
}

func (tc *ToolContext) writeFile(ctx context.Context, in writeFileInput) (Result, error) {
	after := []byte(in.Content)
	p, doc, err := tc.openDoc(ctx, in.Path)
	if errors.Is(err, ErrNotExist) && p.Abs != "" { // admitted by the guard, absent on disk
		c := Change{Path: p, Create: true, Edits: []TextEdit{{NewText: in.Content}}, After: after, Verbatim: true}
		return tc.commit(ctx, "write_file", c, "")
	}
	if err != nil {
		return docError(in.Path, err), ctx.Err()
	}
	if safefile.LooksBinary(doc.Content) {
		return Errorf("%s is a binary file; write_file does not overwrite binary files", in.Path), nil
	}
	after = keepConventions(doc.Content, after)
	if bytes.Equal(doc.Content, after) {
		return Text("No changes: " + p.Rel + " already has this content."), nil
	}
	states := tc.FileStates(ctx)
	if states.ChangedSince(p.Abs, doc.Stamp, doc.Content) {
		// The content was written from an older state of the file:
		// replacing the whole file would silently undo what changed.
		by := "by the user or another program"
		if cmd := states.ChangedBy(p.Abs); cmd != "" {
			by = "by " + commandWords(cmd)
		}
		return Errorf("%s changed since you last read it (%s); read it again before overwriting it, or use edit_file", in.Path, by), nil
	}
	if !states.WasRead(p.Abs) {
		// Replacing a file the model has never seen loses what it did not
		// know was there (Claude Code's Write refuses the same).
		return Errorf("%s already exists and was not read in this run; read it (read_file) before you overwrite it, or change part of it with edit_file", in.Path), nil
	}
	c := Change{Path: p, Base: doc, Edits: diff.LineEdits(doc.Content, after), After: after, Verbatim: true}
	return tc.commit(ctx, "write_file", c, "")
}

// keepConventions gives new content for an existing file that file's
// line endings and byte order mark. read_file shows neither, so a model
// rewriting a CRLF or BOM file would otherwise drop them and turn every
// line into a change.
func keepConventions(old, content []byte) []byte {
	if usesCRLF(old) && !bytes.Contains(content, []byte("\r\n")) && bytes.IndexByte(content, '\n') >= 0 {
		content = bytes.ReplaceAll(content, []byte("\n"), []byte("\r\n"))
	}
	if bytes.HasPrefix(old, utf8BOM) && !bytes.HasPrefix(content, utf8BOM) {
		content = append(bytes.Clone(utf8BOM), content...)
	}
	return content
}
