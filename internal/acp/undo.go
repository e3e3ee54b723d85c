package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// methodUndoRun is cb-ls's extension method: {sessionId} puts back every
// file the session's run changed in this connection, as one reviewed
// change (one session/request_permission with every file's diff). The
// answer is {undone, restored, deleted, left, message}.
const methodUndoRun = "_catbuddy/undoRun"

type undoParams struct {
	SessionID string `json:"sessionId"`
}

type undoResult struct {
	Undone   bool             `json:"undone"`
	Restored []string         `json:"restored"`
	Deleted  []string         `json:"deleted"`
	Left     []tools.UndoLeft `json:"left"`
	Message  string           `json:"message"`
}

// HandleExtensionMethod implements sdk.ExtensionMethodHandler.
func (a *Agent) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != methodUndoRun {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p undoParams
	if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" {
		return nil, sdk.NewInvalidParams(map[string]string{"error": "want {\"sessionId\": \"…\"}"})
	}
	s, err := a.session(sdk.SessionId(p.SessionID))
	if err != nil {
		return nil, err
	}
	return s.undo(ctx)
}

// undo reverts the run's changes, unless a prompt is running.
func (s *acpSession) undo(ctx context.Context) (undoResult, error) {
	turnCtx, end, err := s.beginTurn(ctx)
	if err != nil {
		return undoResult{}, err
	}
	defer end()
	out := undoResult{Restored: []string{}, Deleted: []string{}, Left: []tools.UndoLeft{}}
	s.mu.Lock()
	undone := s.undone
	s.mu.Unlock()
	entries := s.ledger.Files()
	switch {
	case undone:
		return out, sdk.NewInvalidRequest(map[string]string{"error": "this session's run was already undone"})
	case len(entries) == 0:
		out.Message = "The run changed no file: nothing to undo."
		return out, nil
	}
	res, err := s.run.tools().UndoRun(turnCtx, entries)
	out.Left = append(out.Left, res.Left...)
	switch {
	case errors.Is(err, tools.ErrNothingToUndo):
		out.Message = fmt.Sprintf("Nothing to undo (%s).", res.Message())
		return out, nil
	case errors.Is(err, tools.ErrRejected):
		out.Message = fmt.Sprintf("Undo not applied: %v", err)
		return out, nil
	case err != nil:
		return out, sdk.NewInternalError(errorData(err))
	}
	s.mu.Lock()
	s.undone = true
	s.mu.Unlock()
	out.Undone = true
	out.Restored = append(out.Restored, res.Restored...)
	out.Deleted = append(out.Deleted, res.Deleted...)
	out.Message = fmt.Sprintf("Undid the run: %s.", res.Message())
	return out, nil
}
