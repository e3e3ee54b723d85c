package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// approveExec is the editor's tools.Approver: window/showMessageRequest
// with the exact command, its cwd and the model's reason, and the actions
// Reject, Run and Always allow "<prefix>" (tools.ApprovalRequest.Actions
// says why in that order). A dismissed question (null) is a rejection,
// and so is one left unanswered past the question bound (lsp/question.go). "Always allow" is stored in the user's config file.
func (s *Server) approveExec(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	var actions []protocol.MessageActionItem
	for _, a := range req.Actions() {
		actions = append(actions, protocol.MessageActionItem{Title: a})
	}
	var res *protocol.MessageActionItem
	err := s.askUser(ctx, "the question to run "+req.Command, func(ctx context.Context) (err error) {
		res, err = s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeWarning,
			Message: req.Message(),
			Actions: actions,
		})
		return err
	})
	switch {
	case ctx.Err() != nil:
		return tools.Rejected, ctx.Err()
	case errors.Is(err, tools.ErrNoAnswer):
		return tools.Rejected, err
	case err != nil:
		return tools.Rejected, fmt.Errorf("the editor did not show the question: %w", err)
	}
	if res == nil {
		s.log.Info("exec question dismissed: rejected", "command", req.Command)
		return tools.Rejected, nil
	}
	d := req.DecisionFor(res.Title)
	s.log.Info("exec question answered", "command", req.Command, "answer", res.Title)
	if d == tools.AlwaysApproved {
		path, err := config.AddExecAllowRule(req.Prefix)
		if err != nil {
			s.log.Warn("always-allow rule not stored", "rule", req.Prefix, "error", err)
			s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("%q is allowed for this session only: %v", req.Prefix, err))
		} else {
			s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("exec: commands starting with %q are now always allowed (tools.exec.allow in %s)", req.Prefix, path))
		}
	}
	return d, nil
}

// runEventFile is one file of a files_changed runEvent.
type runEventFile struct {
	URI       uri.URI `json:"uri"`
	Path      string  `json:"path"`
	Kind      string  `json:"kind"` // created, changed, deleted
	RunsLater bool    `json:"runsLater,omitempty"`
}

type runIDKey struct{}

// withRunID marks ctx as belonging to run id, for events tools cause.
func withRunID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, runIDKey{}, id)
}

// onExecChanges tells the editor which files a command changed, with a
// catbuddy/runEvent of kind files_changed (runId empty outside a run),
// so it reloads open buffers from disk.
func (s *Server) onExecChanges(ctx context.Context, c tools.ExecChanges) {
	id, _ := ctx.Value(runIDKey{}).(string)
	s.awaitReloads(c)
	files := make([]runEventFile, 0, len(c.Files))
	for _, f := range c.Files {
		files = append(files, runEventFile{URI: fileuri.FromPath(f.Path), Path: f.Rel, Kind: f.Kind, RunsLater: f.RunsLater})
	}
	s.notify(ctx, methodRunEvent, &runEvent{RunID: id, Kind: "files_changed", Command: c.Command, Files: files})
	for _, f := range c.Files {
		if f.RunsLater {
			s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("A command %s %s, which runs later outside any sandbox: review it.", f.Kind, diff.QuoteName(f.Rel)))
		}
	}
}
