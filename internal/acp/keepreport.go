package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/changeset"
)

// keepAnswer is one end-of-turn question and what became of it.
type keepAnswer struct {
	q    fileQuestion
	call string
	// keep: the user kept its files (or edits are allowed for the session).
	keep bool
	// unasked: the question could not be put to the user; its files stay
	// pending for the next turn's question.
	unasked bool
}

// reportKeep ends a's tool call with what became of its files: completed
// with every diff when all of them landed; failed otherwise, with a text
// naming what landed and what did not (and why), and the diffs of what
// landed only. A keep the client applied in part (it refused one write)
// is never shown as completed.
func (s *acpSession) reportKeep(ctx context.Context, a keepAnswer, files []changeset.File, res changeset.KeepResult, kerr error) {
	names := make([]string, len(a.q.files))
	for j, f := range a.q.files {
		names[j] = files[f].Path.Rel
	}
	fail := func(text string, content ...sdk.ToolCallContent) {
		content = append([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}, content...)
		s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(a.call), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateContent(content)))
	}
	switch {
	case a.unasked:
		fail("The question could not be put to you: " + strings.Join(names, ", ") + " stay pending for the next turn.")
		return
	case !a.keep:
		fail("Discarded: " + strings.Join(names, ", ") + ".")
		return
	}
	kept := map[string]bool{}
	for _, id := range res.Kept {
		kept[id] = true
	}
	reasons := map[string]string{}
	for _, l := range res.Left {
		if _, ok := reasons[l.Hunk]; !ok {
			reasons[l.Hunk] = l.Reason
		}
	}
	var landed, missed []string
	var shown []sdk.ToolCallContent
	for j, f := range a.q.files {
		file := files[f]
		if ok, why := fileLanded(file, kept, reasons, kerr); !ok {
			missed = append(missed, fmt.Sprintf("%s (%s)", file.Path.Rel, why))
			continue
		}
		landed = append(landed, file.Path.Rel)
		shown = append(shown, a.q.diffs[j])
	}
	if len(missed) == 0 {
		s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(a.call), sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateContent(a.q.diffs)))
		return
	}
	text := "Not kept: " + strings.Join(missed, "; ") + ". They stay pending."
	if len(landed) > 0 {
		text = "Kept only part: " + strings.Join(landed, ", ") + " landed. " + text
	}
	fail(text, shown...)
}

// fileLanded reports whether every change of f was kept, and if not,
// why (the first reason a keep gave for one of its hunks, or the keep's
// error).
func fileLanded(f changeset.File, kept map[string]bool, reasons map[string]string, kerr error) (bool, string) {
	ids := []string{}
	if f.Group != nil {
		ids = append(ids, f.Group.ID)
	}
	for _, h := range f.Hunks {
		ids = append(ids, h.ID)
	}
	all := len(ids) > 0
	why := ""
	for _, id := range ids {
		if kept[id] {
			continue
		}
		all = false
		if why == "" {
			why = reasons[id]
		}
	}
	switch {
	case all:
		return true, ""
	case why != "":
		return false, why
	case kerr != nil:
		return false, kerr.Error()
	}
	return false, "not applied"
}
