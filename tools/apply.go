package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// commit is the one write path of edit_file, write_file and multi_edit.
// It reports EditStarted, hands c to the Workspace, and then either
// records the write in the run's FileStates and reports EditDone with
// the line stats, or reports EditFailed and returns an error result
// ("edit not applied: why") without recording anything. warning, if
// not empty, heads the result (an edit of a file never read).
//
// The returned error is non-nil only when ctx ended during Apply: the
// run itself is over.
func (tc *ToolContext) commit(ctx context.Context, tool string, c Change, warning string) (Result, error) {
	ev := EditEvent{Tool: tool, Path: c.Path.Abs, Rel: c.Path.Rel}
	if !editsProduce(c.Base.Content, c.Edits, c.After) {
		// A bug in the tool, never the model's fault: refuse rather than
		// let the editor and the disk disagree about the result.
		slog.Error("inconsistent change", "tool", tool, "path", c.Path.Abs, "edits", len(c.Edits))
		return Errorf("%s: internal error: the computed edits do not produce the new content; nothing was written", tool), nil
	}
	if c.Label == "" {
		c.Label = tool + " " + c.Path.Rel
	}
	d := diffEdits(c.Path.Rel, c.Create, c.Base.Content, c.Edits)
	ev.Added, ev.Removed = d.Added, d.Removed

	before, report := tc.diagnosticsBefore(ctx, c)
	ev.Phase = EditStarted
	tc.notify(ctx, ev)
	doc, err := tc.Workspace.Apply(ctx, c)
	if err != nil {
		msg := notAppliedMessage(err)
		ev.Phase, ev.Message = EditFailed, msg
		tc.notify(ctx, ev)
		res := Result{Output: "Error: " + msg, IsError: true}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		return res, nil
	}
	content := doc.Content
	if content == nil {
		content = c.After
	}
	tc.FileStates(ctx).RecordWrite(c.Path.Abs, doc.Stamp, content)
	partial := ""
	if len(doc.Rejected) > 0 {
		// The user kept some hunks and not others: report exactly that,
		// with the diff of what is really in the file now.
		partial = partialMessage(c, doc.Rejected)
		c.Edits = landedEdits(c.Edits, doc.Rejected)
		d = diffEdits(c.Path.Rel, c.Create, c.Base.Content, c.Edits)
		ev.Added, ev.Removed = d.Added, d.Removed
	}
	ev.Phase = EditDone
	tc.notify(ctx, ev)

	var b strings.Builder
	if warning != "" {
		b.WriteString(warning)
		b.WriteString("\n\n")
	}
	if partial != "" {
		b.WriteString(partial)
		b.WriteString("\n")
	} else {
		verb := "Edited"
		if c.Create {
			verb = "Created"
		}
		fmt.Fprintf(&b, "%s %s (+%d -%d)\n", verb, c.Path.Rel, d.Added, d.Removed)
	}
	b.WriteString(d.Unified)
	if report {
		if line := tc.diagnosticsReport(ctx, c.Path.Rel, c.Path.Abs, before); line != "" {
			fmt.Fprintf(&b, "\n%s", line)
		}
	}
	return Result{
		Output: strings.TrimRight(b.String(), "\n"),
		Edit: &EditInfo{
			Path:    c.Path.Abs,
			Rel:     c.Path.Rel,
			Added:   d.Added,
			Removed: d.Removed,
			Diff:    d.Unified,
		},
	}, nil
}

// notAppliedMessage phrases an Apply failure for the model, always
// starting "edit not applied:" so the model knows nothing changed.
func notAppliedMessage(err error) string {
	msg := err.Error()
	prefix := ErrRejected.Error() + ": "
	if errors.Is(err, ErrRejected) {
		if i := strings.Index(msg, prefix); i > 0 {
			msg = msg[i:] // "applyEdit: edit not applied: why" → "edit not applied: why"
		}
		if msg == ErrRejected.Error() {
			return msg + ": the editor or the user refused it"
		}
		if strings.HasPrefix(msg, prefix) {
			return msg
		}
	}
	return prefix + msg
}
