package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

// commit is the one write path of edit_file, write_file and multi_edit:
// commitAll of one change.
func (tc *ToolContext) commit(ctx context.Context, tool string, c Change, warning string) (Result, error) {
	return tc.commitAll(ctx, tool, []Change{c}, warning)
}

// commitAll reports EditStarted for each change, hands them to the
// Workspace together (one review in the editor, all or nothing on disk),
// and then records each write in the run's FileStates and its ledger and
// reports EditDone with the line stats — or reports EditFailed and
// returns an error result ("edit not applied: why") without recording
// anything. A change the user accepted only in part is described hunk
// by hunk. warning, if not empty, heads the result (an edit of a file
// never read).
//
// The returned error is non-nil only when ctx ended during Apply: the
// run itself is over.
func (tc *ToolContext) commitAll(ctx context.Context, tool string, cs []Change, warning string) (Result, error) {
	evs := make([]EditEvent, len(cs))
	diffs := make([]diff.Result, len(cs))
	befores := make([][]Diagnostic, len(cs))
	reports := make([]bool, len(cs))
	for i := range cs {
		c := &cs[i]
		if !c.Delete && !diff.Produces(c.Base.Content, c.Edits, c.After) {
			// A bug in the tool, never the model's fault: refuse rather than
			// let the editor and the disk disagree about the result.
			slog.Error("inconsistent change", "tool", tool, "path", c.Path.Abs, "edits", len(c.Edits))
			return Errorf("%s: internal error: the computed edits do not produce the new content; nothing was written", tool), nil
		}
		if c.Label == "" {
			c.Label = tool + " " + c.Path.Rel
		}
		diffs[i] = changeDiff(*c, cs)
		if !c.Delete {
			befores[i], reports[i] = tc.diagnosticsBefore(ctx, *c)
		}
		evs[i] = EditEvent{Tool: tool, Path: c.Path.Abs, Rel: c.Path.Rel, Phase: EditStarted, Added: diffs[i].Added, Removed: diffs[i].Removed}
		tc.notify(ctx, evs[i])
	}
	docs, err := ApplyAll(ctx, tc.workspace(ctx), cs)
	if err != nil {
		msg := notAppliedMessage(err)
		for i := range cs {
			if i < len(docs) {
				continue // applied before the failure (a Workspace without ApplyAll)
			}
			evs[i].Phase, evs[i].Message = EditFailed, msg
			tc.notify(ctx, evs[i])
		}
		res := Result{Output: "Error: " + msg, IsError: true}
		if len(docs) > 0 {
			res.Output += fmt.Sprintf(" (the first %d of %d files were changed before the failure)", len(docs), len(cs))
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		return res, nil
	}

	var b strings.Builder
	if warning != "" {
		b.WriteString(warning)
		b.WriteString("\n\n")
	}
	var infos []EditInfo
	npending := 0
	for i, c := range cs {
		doc := docs[i]
		d := diffs[i]
		full := !c.Verbatim // the diff is news to the model
		if doc.Merged != nil {
			// Described, recorded and undone as what it was in the end:
			// the same hunks over the user's text (the undo keeps it).
			label := c.Label
			c = *doc.Merged
			c.Label = label
			d = changeDiff(c, cs)
			full = true
			fmt.Fprintf(&b, mergedNote+"\n", c.Path.Rel)
		}
		rejectedAll := !c.Delete && len(doc.Rejected) >= max(1, len(c.Edits))
		switch {
		case rejectedAll:
			fmt.Fprintf(&b, "Not applied to %s: the user rejected every hunk of it.\n", c.Path.Rel)
			evs[i].Phase, evs[i].Message = EditFailed, "rejected by the user"
			tc.notify(ctx, evs[i])
			continue
		case len(doc.Rejected) > 0:
			b.WriteString(partialMessage(c, doc.Rejected))
			b.WriteString("\n")
			c.Edits = diff.Without(c.Edits, doc.Rejected)
			d = changeDiff(c, cs)
			b.WriteString(d.Unified)
		default:
			if rc, ok := reshaped(c, doc); ok {
				c, d, full = rc, changeDiff(rc, cs), true
				fmt.Fprintf(&b, reshapedNote+"\n", c.Path.Rel)
			}
			if pending(ctx) && c.Moved == "" {
				// Pending the user's review: the lines, not the diff;
				// of several files, said once after them.
				b.WriteString(pendingLine(landedVerb(c), c, d, len(cs) == 1))
				npending++
			} else {
				b.WriteString(landedReport(c, d, full, tool != "apply_patch"))
			}
		}
		if note := indentNote(tool, c); note != "" {
			fmt.Fprintf(&b, "%s\n", note)
		}
		if reports[i] {
			content := doc.Content
			if content == nil {
				content = c.After
			}
			if line := tc.diagnosticsReport(ctx, c.Path.Rel, c.Path.Abs, content, befores[i]); line != "" {
				fmt.Fprintf(&b, "\n%s\n", line)
			}
		}
		tc.record(ctx, c, doc)
		evs[i].Phase, evs[i].Added, evs[i].Removed = EditDone, d.Added, d.Removed
		tc.notify(ctx, evs[i])
		unified := d.Unified
		if c.Delete && c.Moved != "" {
			unified = "" // the new file's diff tells the move
		}
		infos = append(infos, EditInfo{Path: c.Path.Abs, Rel: c.Path.Rel, Added: d.Added, Removed: d.Removed, Diff: unified})
	}
	if len(cs) > 1 && npending > 0 {
		if npending == 1 {
			b.WriteString("The edited file is pending the user's review.\n")
		} else {
			fmt.Fprintf(&b, "The %d edited files are pending the user's review.\n", npending)
		}
	}
	return Result{Output: strings.TrimRight(b.String(), "\n"), Edits: infos}, nil
}

// mergedNote heads the result of an edit the Workspace merged with the
// user's typing.
const mergedNote = "%s changed in the editor while this edit waited for review; the edit was merged with those changes, which were kept. The diff below is against the file as the user had it; read the file again before you edit it further."

// reshapedNote heads the result of an edit whose text the Workspace
// changed as it landed (an editor that formats on save).
const reshapedNote = "%s holds other text than this edit sent: the editor changed it as it landed (formatting, or the user typing). The diff below is what the file holds now; read the file again before you edit it further."

// reshaped returns c as it landed when the Workspace reports content
// other than c.After, and false when it landed as sent.
func reshaped(c Change, doc Document) (Change, bool) {
	if c.Delete || doc.Content == nil || bytes.Equal(doc.Content, c.After) {
		return c, false
	}
	out := c
	out.After = doc.Content
	if c.Create {
		out.Edits = []TextEdit{{NewText: string(doc.Content)}}
	} else {
		out.Edits = diff.LineEdits(c.Base.Content, doc.Content)
	}
	return out, true
}

// changeDiff is the line diff of c for the model and the editor; the
// new file of a rename is diffed against the old one, found in cs.
func changeDiff(c Change, cs []Change) diff.Result {
	if c.Moved != "" && c.Create {
		for _, o := range cs {
			if o.Delete && o.Path.Rel == c.Moved {
				return diff.Compute(c.Path.Rel, false, o.Base.Content, diff.LineEdits(o.Base.Content, c.After))
			}
		}
	}
	if c.Delete {
		return diff.Compute(c.Path.Rel, false, c.Base.Content, []TextEdit{{Start: 0, End: len(c.Base.Content)}})
	}
	return diff.Compute(c.Path.Rel, c.Create, c.Base.Content, c.Edits)
}

// record notes a landed write in the run's FileStates (the file as it
// now is) and its ledger (what the file held before, for an undo).
func (tc *ToolContext) record(ctx context.Context, c Change, doc Document) {
	content := doc.Content
	if content == nil && !c.Delete {
		content = c.After
	}
	tc.FileStates(ctx).RecordWrite(c.Path.Abs, doc.Stamp, content)
	// A pending write is not the user's file yet: the keep records it.
	if l := filestate.LedgerFromContext(ctx); l != nil && !pending(ctx) {
		l.RecordWrite(c.Path.Abs, !c.Create, c.Base.Content, content, c.Delete)
	}
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

// partialMessage tells the model which hunks of c the user kept:
// "Applied 2 of 3 hunks to calc.go; the user rejected hunk 2 (lines
// 40–44: "total := 0" → "sum := 0"). …", followed by the diff of what
// landed.
func partialMessage(c Change, rejected []int) string {
	var b strings.Builder
	n := len(c.Edits)
	fmt.Fprintf(&b, "Applied %d of %d hunks to %s; the user rejected ", n-len(rejected), n, c.Path.Rel)
	if len(rejected) == 1 {
		b.WriteString("hunk ")
	} else {
		b.WriteString("hunks ")
	}
	for k, i := range rejected {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d (%s)", i+1, diff.HunkSummary(c.Base.Content, c.Edits[i]))
	}
	b.WriteString(". The file now holds only the accepted hunks; do not redo the rejected ones unless the user asks. What landed:")
	return b.String()
}
