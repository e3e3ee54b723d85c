package acp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// Option ids of the questions cb-ls asks.
const (
	optAllow        = "allow"
	optAllowSession = "allow-session"
	optAlways       = "always"
	optReject       = "reject"
)

// errRejectedByUser is what the model hears for a change the user said
// no to (or dismissed).
var errRejectedByUser = fmt.Errorf("%w: rejected by user", tools.ErrRejected)

// ask puts the whole change to the user, the diff of every file shown
// (one session/request_permission, or one per file for a client that
// shows one diff of a question: questions.go), unless edits are allowed
// for the session. Only an allow of every question lets the change
// through: the first other answer ends the asking.
func (w *workspace) ask(ctx context.Context, cs []tools.Change) error {
	w.mu.Lock()
	allowed := w.allowEdits
	w.mu.Unlock()
	diffs := changeDiffs(cs)
	title, kind := changeTitle(cs), changeKind(cs)
	call := w.s.questionCall(ctx, title, kind)
	if allowed {
		w.s.keepDiffs(call, diffs)
		return nil
	}
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.Path.Abs
	}
	qs := w.s.a.profile().questions(title, paths, diffs, func(i int) string {
		return ofTotal(changeTitle(cs[i:i+1]), i, len(cs))
	})
	for _, q := range qs {
		choice, err := w.s.askChanges(ctx, call, q.title, kind, q.paths, q.diffs)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("%w: the editor did not ask the user: %v", tools.ErrRejected, err)
		case choice == optAllowSession:
			w.mu.Lock()
			w.allowEdits = true
			w.mu.Unlock()
		case choice != optAllow:
			return errRejectedByUser
		}
		w.mu.Lock()
		allowed = w.allowEdits
		w.mu.Unlock()
		if allowed {
			break
		}
	}
	w.s.keepDiffs(call, diffs)
	return nil
}

// askChanges puts a change of the files at paths, with their diffs, to
// the user as ONE session/request_permission on tool call call, and
// returns the option chosen ("" for a cancelled question or an error).
// A client that shows only the title gets the diffs in it.
func (s *acpSession) askChanges(ctx context.Context, call, title string, kind sdk.ToolKind, paths []string, diffs []sdk.ToolCallContent) (string, error) {
	locs := locations(paths)
	title = s.shownTitle(title, diffs)
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(call), Title: &title, Kind: &kind,
			Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: locs, Content: diffs,
		},
		Options: []sdk.PermissionOption{
			{OptionId: optAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optAllowSession, Name: "Allow all edits in this session", Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	return chosen(res, err), err
}

// chosen is the option picked; "" for a cancelled question or an error.
func chosen(res sdk.RequestPermissionResponse, err error) string {
	if err != nil || res.Outcome.Selected == nil {
		return ""
	}
	return string(res.Outcome.Selected.OptionId)
}

// changeDiffs is the diff content of every file of cs.
func changeDiffs(cs []tools.Change) []sdk.ToolCallContent {
	out := make([]sdk.ToolCallContent, 0, len(cs))
	for _, c := range cs {
		switch {
		case c.Create:
			out = append(out, sdk.ToolDiffContent(c.Path.Abs, string(c.After)))
		case c.Delete:
			out = append(out, sdk.ToolDiffContent(c.Path.Abs, "", string(c.Base.Content)))
		default:
			out = append(out, sdk.ToolDiffContent(c.Path.Abs, string(c.After), string(c.Base.Content)))
		}
	}
	return out
}

// changeTitle says what the change does, naming every file.
func changeTitle(cs []tools.Change) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Path.Rel
	}
	if len(cs) == 1 {
		switch c := cs[0]; {
		case c.Create:
			return "Create " + c.Path.Rel
		case c.Delete:
			return "Delete " + c.Path.Rel
		}
		return "Edit " + cs[0].Path.Rel
	}
	return fmt.Sprintf("Change %d files: %s", len(cs), strings.Join(names, ", "))
}

// changeKind is delete when the change only removes files, else edit.
func changeKind(cs []tools.Change) sdk.ToolKind {
	for _, c := range cs {
		if !c.Delete {
			return sdk.ToolKindEdit
		}
	}
	return sdk.ToolKindDelete
}

// locations are paths as tool call locations.
func locations(paths []string) []sdk.ToolCallLocation {
	locs := make([]sdk.ToolCallLocation, len(paths))
	for i, p := range paths {
		locs[i] = sdk.ToolCallLocation{Path: p}
	}
	return locs
}

// questionSeq numbers the tool calls cb-ls makes up for questions asked
// outside a model's tool call (an undo, the trust question).
var questionSeq atomic.Int64

// questionCall returns the tool call a question belongs to: the model's
// running one, or a new one announced to the client first.
func (s *acpSession) questionCall(ctx context.Context, title string, kind sdk.ToolKind) string {
	if id := s.currentCall(); id != "" {
		return id
	}
	return s.newCall(ctx, title, kind, nil)
}

// newCall announces a tool call of cb-ls's own, for a question no tool
// call of the model's asks (the end of a turn, an undo, trust), so that
// its outcome never changes how the model's calls are shown.
func (s *acpSession) newCall(ctx context.Context, title string, kind sdk.ToolKind, paths []string) string {
	id := fmt.Sprintf("cb-%d", questionSeq.Add(1))
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)}
	if len(paths) > 0 {
		opts = append(opts, sdk.WithStartLocations(locations(paths)))
	}
	s.update(ctx, sdk.StartToolCall(sdk.ToolCallId(id), title, opts...))
	return id
}

// approver asks before a command runs with write or network access,
// naming the command, its directory and the model's reason, with the
// same choices as every editor: Run, Always allow "<prefix>" (stored as
// the same user rule), Reject.
type approver struct{ s *acpSession }

// Approve implements tools.Approver.
func (ap approver) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	s := ap.s
	title := "Run " + req.Command
	call := s.questionCall(ctx, title, sdk.ToolKindExecute)
	opts := []sdk.PermissionOption{{OptionId: optAllow, Name: tools.ActionRun, Kind: sdk.PermissionOptionKindAllowOnce}}
	if req.Prefix != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optAlways, Name: tools.AlwaysAction(req.Prefix), Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: tools.ActionReject, Kind: sdk.PermissionOptionKindRejectOnce})
	kind := sdk.ToolKindExecute
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(call), Title: &title, Kind: &kind, Status: sdk.Ptr(sdk.ToolCallStatusPending),
			Locations: []sdk.ToolCallLocation{{Path: req.Cwd}},
			Content:   []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(req.Message()))},
			RawInput:  map[string]any{"command": req.Command, "cwd": req.Cwd, "reason": req.Reason, "write": req.Write, "network": req.Network},
		},
		Options: opts,
	})
	choice := chosen(res, err)
	switch {
	case ctx.Err() != nil:
		return tools.Rejected, ctx.Err()
	case err != nil:
		return tools.Rejected, fmt.Errorf("the editor did not ask the user: %w", err)
	case choice == optAllow:
		return tools.Approved, nil
	case choice == optAlways && req.Prefix != "":
		s.run.rememberAllow(ctx, req.Prefix)
		return tools.AlwaysApproved, nil
	}
	s.a.log.Info("acp: command rejected", "command", req.Command, "choice", choice)
	return tools.Rejected, nil
}
