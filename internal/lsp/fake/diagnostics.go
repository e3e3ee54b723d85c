package fake

import (
	"encoding/json"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/lsp"
)

// DiagnosticsFunc computes a document's diagnostics from its current
// text, as a language server would ("" text: the document is not open).
type DiagnosticsFunc func(u uri.URI, text string) []protocol.Diagnostic

// SetDiagnostics makes the editor answer catbuddy/diagnostics with f's
// result for the buffer's text at the time of the request. Without it
// (or with nil) the request gets MethodNotFound, as from a client that
// does not implement it.
func (e *Editor) SetDiagnostics(f DiagnosticsFunc) {
	e.mu.Lock()
	e.diags = f
	e.mu.Unlock()
}

// DiagnosticsRequests returns the URIs catbuddy/diagnostics asked about,
// in order.
func (e *Editor) DiagnosticsRequests() []uri.URI {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.diagAsks)
}

// DiagnosticsParams returns the params of every catbuddy/diagnostics
// request as sent on the wire, in order.
func (e *Editor) DiagnosticsParams() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.diagRaw)
}

func (e *Editor) answerDiagnostics(params json.RawMessage) (any, error) {
	var p lsp.DiagnosticsParams
	if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
		e.t.Errorf("server sent malformed %s: %v\n%s", lsp.MethodDiagnostics, err, params)
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "want {uri}")
	}
	e.mu.Lock()
	e.diagAsks = append(e.diagAsks, p.URI)
	e.diagRaw = append(e.diagRaw, slices.Clone(params))
	f := e.diags
	text := ""
	if b, ok := e.buffers[p.URI]; ok {
		text = b.text
	}
	e.wake()
	e.mu.Unlock()
	if f == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s", lsp.MethodDiagnostics)
	}
	out := f(p.URI, text)
	if out == nil {
		out = []protocol.Diagnostic{}
	}
	return out, nil
}
