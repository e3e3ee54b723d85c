package fake

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp"
)

// LanguageFeatureFunc answers one catbuddy/languageFeature request as
// the editor's other language servers would: method is the LSP method,
// params its standard params, and the result that method's standard
// result (nil for null). ctx ends when the server sends $/cancelRequest
// for the request.
type LanguageFeatureFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

// LanguageFeatureRequest is one catbuddy/languageFeature the fake received.
type LanguageFeatureRequest struct {
	ID     jsonrpc2.ID
	Method string
	Params json.RawMessage
}

// LanguageFeatures returns capabilities that list methods in
// experimental.catbuddy.languageFeatures, for Options.Capabilities.
func LanguageFeatures(methods ...string) func(*protocol.ClientCapabilities) {
	return func(c *protocol.ClientCapabilities) {
		raw, _ := json.Marshal(map[string]any{"catbuddy": map[string]any{"languageFeatures": methods}})
		c.Experimental = raw
	}
}

// langState is the fake's side of the language feature bridge.
type langState struct {
	mu        sync.Mutex
	answer    LanguageFeatureFunc
	requests  []LanguageFeatureRequest
	pending   map[jsonrpc2.ID]context.CancelFunc
	cancelled []jsonrpc2.ID
	format    FormatTextFunc         // catbuddy/formatText (formattext.go)
	formats   []lsp.FormatTextParams // the formatText requests received
}

// SetLanguageFeatures makes the editor answer catbuddy/languageFeature
// with f. Without it the request gets MethodNotFound.
func (e *Editor) SetLanguageFeatures(f LanguageFeatureFunc) {
	e.lang.mu.Lock()
	e.lang.answer = f
	e.lang.mu.Unlock()
}

// LanguageFeatureRequests returns the catbuddy/languageFeature requests
// received, in order.
func (e *Editor) LanguageFeatureRequests() []LanguageFeatureRequest {
	e.lang.mu.Lock()
	defer e.lang.mu.Unlock()
	return append([]LanguageFeatureRequest(nil), e.lang.requests...)
}

// CancelledRequests returns the ids the server sent $/cancelRequest for
// while a language feature request was pending.
func (e *Editor) CancelledRequests() []jsonrpc2.ID {
	e.lang.mu.Lock()
	defer e.lang.mu.Unlock()
	return append([]jsonrpc2.ID(nil), e.lang.cancelled...)
}

func (e *Editor) answerLanguageFeature(ctx context.Context, id jsonrpc2.ID, params json.RawMessage) (any, error) {
	var p lsp.LanguageFeatureParams
	if err := json.Unmarshal(params, &p); err != nil || p.Method == "" {
		e.t.Errorf("server sent malformed %s: %v\n%s", lsp.MethodLanguageFeature, err, params)
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "want {method, params}")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := &e.lang
	l.mu.Lock()
	if l.pending == nil {
		l.pending = map[jsonrpc2.ID]context.CancelFunc{}
	}
	l.requests = append(l.requests, LanguageFeatureRequest{ID: id, Method: p.Method, Params: p.Params})
	l.pending[id] = cancel
	f := l.answer
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.pending, id)
		l.mu.Unlock()
	}()
	e.mu.Lock()
	e.wake()
	e.mu.Unlock()
	if f == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s", lsp.MethodLanguageFeature)
	}
	res, err := f(ctx, p.Method, p.Params)
	if ctx.Err() != nil {
		return nil, protocol.ErrRequestCancelled
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return jsonrpc2.RawMessage("null"), nil
	}
	return res, nil
}

// cancelRequest handles $/cancelRequest from the server: a pending
// language feature request's context ends.
func (e *Editor) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var n int64
	var s string
	var id jsonrpc2.ID
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(p.ID, &s) == nil:
		id = jsonrpc2.NewStringID(s)
	default:
		return
	}
	if e.withdraw(id) {
		e.mu.Lock()
		e.wake()
		e.mu.Unlock()
		return
	}
	l := &e.lang
	l.mu.Lock()
	cancel := l.pending[id]
	if cancel != nil {
		l.cancelled = append(l.cancelled, id)
	}
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	e.mu.Lock()
	e.wake()
	e.mu.Unlock()
}
