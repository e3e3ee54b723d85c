package fake

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp"
)

// FormatTextFunc answers one catbuddy/formatText request as the editor's
// formatter would: a *lsp.FormatTextResult, or nil for null (no
// formatter).
type FormatTextFunc func(ctx context.Context, p lsp.FormatTextParams) (any, error)

// WithFormatText returns caps with experimental.catbuddy.formatText
// declared as well, for Options.Capabilities.
func WithFormatText(caps func(*protocol.ClientCapabilities)) func(*protocol.ClientCapabilities) {
	return func(c *protocol.ClientCapabilities) {
		if caps != nil {
			caps(c)
		}
		exp := map[string]map[string]any{}
		_ = json.Unmarshal(c.Experimental, &exp)
		if exp["catbuddy"] == nil {
			exp["catbuddy"] = map[string]any{}
		}
		exp["catbuddy"]["formatText"] = true
		c.Experimental, _ = json.Marshal(exp)
	}
}

// SetFormatText makes the editor answer catbuddy/formatText with f.
// Without it the request gets MethodNotFound.
func (e *Editor) SetFormatText(f FormatTextFunc) {
	e.lang.mu.Lock()
	e.lang.format = f
	e.lang.mu.Unlock()
}

// FormatTextRequests returns the catbuddy/formatText requests received,
// in order.
func (e *Editor) FormatTextRequests() []lsp.FormatTextParams {
	e.lang.mu.Lock()
	defer e.lang.mu.Unlock()
	return append([]lsp.FormatTextParams(nil), e.lang.formats...)
}

func (e *Editor) answerFormatText(ctx context.Context, params json.RawMessage) (any, error) {
	var p lsp.FormatTextParams
	if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
		e.t.Errorf("server sent malformed %s: %v\n%s", lsp.MethodFormatText, err, params)
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "want {uri, text}")
	}
	l := &e.lang
	l.mu.Lock()
	l.formats = append(l.formats, p)
	f := l.format
	l.mu.Unlock()
	if f == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s", lsp.MethodFormatText)
	}
	res, err := f(ctx, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return jsonrpc2.RawMessage("null"), nil
	}
	return res, nil
}
