package lsp

import (
	"context"
	"fmt"
	"runtime/debug"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// method is one LSP method the server handles.
type method struct {
	// async handlers run concurrently with later messages: requests that
	// may take long or call the client. Everything else, notably the text
	// synchronisation notifications, runs in wire order on the read loop,
	// so the overlay always reflects every didChange that came before.
	async bool
	// inline, when set on an async method, says that these params are
	// answered at once on the read loop: handing the read loop to a new
	// goroutine costs more than a quick answer (an unknown command's
	// error) takes.
	inline func(params jsonrpc2.RawMessage) bool
	// pin, when set on an async method, runs on the read loop before the
	// request leaves it, to note what the request saw (the document's
	// version an inline completion was asked at).
	pin func(ctx context.Context, params jsonrpc2.RawMessage) context.Context
	fn  func(ctx context.Context, params jsonrpc2.RawMessage) (any, error)
}

// methodTable lists every method the server answers; anything else is
// MethodNotFound (requests) or ignored (notifications).
func (s *Server) methodTable() map[string]method {
	sync := func(fn func(context.Context, jsonrpc2.RawMessage) (any, error)) method { return method{fn: fn} }
	async := func(fn func(context.Context, jsonrpc2.RawMessage) (any, error)) method {
		return method{async: true, fn: fn}
	}
	return map[string]method{
		protocol.MethodInitialize:                         sync(s.initialize),
		protocol.MethodInitialized:                        async(s.initialized),
		protocol.MethodShutdown:                           sync(s.shutdown),
		protocol.MethodExit:                               sync(s.exit),
		protocol.MethodSetTrace:                           sync(noop),
		protocol.MethodTextDocumentDidOpen:                sync(s.didOpen),
		protocol.MethodTextDocumentDidChange:              sync(s.didChange),
		protocol.MethodTextDocumentDidClose:               sync(s.didClose),
		protocol.MethodTextDocumentDidSave:                sync(s.didSave),
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: sync(s.didChangeWorkspaceFolders),
		protocol.MethodWorkspaceDidChangeConfiguration:    sync(s.didChangeConfiguration),
		protocol.MethodWindowWorkDoneProgressCancel:       sync(s.workDoneProgressCancel),
		protocol.MethodTextDocumentCodeAction:             async(s.codeAction),
		protocol.MethodWorkspaceExecuteCommand:            {async: true, inline: s.unknownCommand, fn: s.executeCommand},
		protocol.MethodTextDocumentInlineCompletion:       {async: true, pin: s.pinCompletion, fn: s.inlineCompletion},
	}
}

func noop(context.Context, jsonrpc2.RawMessage) (any, error) { return nil, nil }

// handle is the connection's jsonrpc2 handler. It never returns an error for a notification:
// jsonrpc2 would tear the connection down, and a bad notification from
// the editor must not end the session.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name := req.Method()
	isCall := req.IsCall()
	if name == protocol.MethodCancelRequest {
		s.cancelRequest(req.Params())
		return nil, nil
	}
	m, ok := s.methods[name]
	if !ok {
		if !isCall {
			s.log.Debug("ignoring notification", "method", name)
			return nil, nil
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", name)
	}
	if err := s.admit(name); err != nil {
		if !isCall {
			s.log.Debug("dropping notification", "method", name, "reason", err)
			return nil, nil
		}
		return nil, err
	}
	if m.async && (m.inline == nil || !m.inline(req.Params())) {
		if m.pin != nil {
			ctx = m.pin(ctx, req.Params())
		}
		jsonrpc2.Async(ctx)
		if isCall {
			// Only released requests are cancellable: a derived context
			// starts a goroutine that may outlive the handler, and a request
			// handled inline is recycled by jsonrpc2 as soon as it returns.
			var done func()
			ctx, done = s.trackCancel(ctx, req.ID())
			defer done()
		}
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", name, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s failed internally: %v", name, p)
		}
		if !isCall {
			if err != nil {
				s.log.Warn("notification failed", "method", name, "error", err)
			}
			result, err = nil, nil
		}
	}()
	result, err = m.fn(ctx, req.Params())
	if isCall && ctx.Err() != nil && name != protocol.MethodShutdown {
		return nil, protocol.ErrRequestCancelled
	}
	return result, err
}

// admit applies the lifecycle: nothing but initialize before it, nothing
// but exit after shutdown.
func (s *Server) admit(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case name == protocol.MethodExit:
		return nil
	case s.state == stateNew && name != protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized")
	case s.state != stateNew && name == protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize sent twice")
	case s.state == stateShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shut down")
	}
	return nil
}

// cancelRequest handles $/cancelRequest for numeric and string ids. The
// cancelled handler answers with RequestCancelled (-32800).
func (s *Server) cancelRequest(raw jsonrpc2.RawMessage) {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		s.log.Warn("malformed $/cancelRequest", "error", err)
		return
	}
	var id jsonrpc2.ID
	switch v := p.ID.(type) {
	case protocol.Integer:
		id = jsonrpc2.NewNumberID(int64(v))
	case protocol.String:
		id = jsonrpc2.NewStringID(string(v))
	default:
		s.log.Warn("malformed $/cancelRequest: no id")
		return
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// trackCancel makes ctx cancellable by $/cancelRequest for id; done
// forgets it.
func (s *Server) trackCancel(ctx context.Context, id jsonrpc2.ID) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inflight[id] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight, id)
		s.mu.Unlock()
		cancel()
	}
}

// decodeParams decodes raw into v, answering malformed params with
// InvalidParams.
func decodeParams(raw jsonrpc2.RawMessage, v any) error {
	if len(raw) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := protocol.Unmarshal(raw, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// invalidParams is the error for params that decode but make no sense.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}
