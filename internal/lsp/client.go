package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Server → client messages. Notifications never wait and may be sent from
// anywhere. Requests (showDocument, applyEdit, workDoneProgress/create)
// wait for the client's answer and so must never run on the read loop:
// call them only from async handlers (executeCommand, codeAction) or
// goroutines they start.

// notify sends a notification; a failure (the connection is gone) is
// logged, not returned: there is nobody left to tell.
func (s *Server) notify(ctx context.Context, method string, params any) {
	if err := s.conn.Notify(context.WithoutCancel(ctx), method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "error", err)
	}
}

// logMessage sends window/logMessage (the editor's output panel).
func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// showMessage sends window/showMessage (a toast or the command line).
func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// ErrUnsupported is returned for a request the client did not declare
// support for.
var ErrUnsupported = errors.New("not supported by the client")

// showDocument asks the client to show u (window/showDocument), if it
// supports that; otherwise it returns ErrUnsupported and the caller falls
// back (e.g. to a showMessage naming the file).
func (s *Server) showDocument(ctx context.Context, u uri.URI, takeFocus bool) (bool, error) {
	caps := s.Capabilities()
	if caps.Window == nil || caps.Window.ShowDocument == nil || !caps.Window.ShowDocument.Support {
		return false, ErrUnsupported
	}
	res, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: u, TakeFocus: &takeFocus})
	if err != nil {
		return false, err
	}
	return res != nil && res.Success, nil
}

// supportsWorkDoneProgress reports window.workDoneProgress.
func (s *Server) supportsWorkDoneProgress() bool {
	caps := s.Capabilities()
	return caps.Window != nil && caps.Window.WorkDoneProgress != nil && *caps.Window.WorkDoneProgress
}

// supportsAnnotations reports workspace.workspaceEdit.changeAnnotationSupport.
func (s *Server) supportsAnnotations() bool {
	caps := s.Capabilities()
	return caps.Workspace != nil && caps.Workspace.WorkspaceEdit != nil && caps.Workspace.WorkspaceEdit.ChangeAnnotationSupport != nil
}

// catbuddyCaps is what the client declared in
// capabilities.experimental.catbuddy.
type catbuddyCaps struct {
	// RunEnd: the client renders a run's end event itself.
	RunEnd bool `json:"runEnd"`
	// PendingChanges: the client shows a run's pending changes from
	// catbuddy/pendingChanges and keeps or discards them with
	// catbuddy.keep and catbuddy.discard (pending_protocol.go).
	PendingChanges bool `json:"pendingChanges"`
}

// experimental returns the client's capabilities.experimental.catbuddy;
// anything malformed there declares nothing.
func (s *Server) experimental() catbuddyCaps {
	raw := s.Capabilities().Experimental
	if len(raw) == 0 {
		return catbuddyCaps{}
	}
	var exp struct {
		Catbuddy catbuddyCaps `json:"catbuddy"`
	}
	_ = json.Unmarshal(raw, &exp)
	return exp.Catbuddy
}

// clientShowsRunEnd reports whether the client said, with the experimental
// capability catbuddy.runEnd, that it renders a run's end event itself.
func (s *Server) clientShowsRunEnd() bool { return s.experimental().RunEnd }
