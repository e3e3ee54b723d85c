package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// MethodLanguageFeature is the server→client request that asks the
// editor's other language servers a standard LSP question
// (docs/PROTOCOL.md). The client lists the methods it answers in
// capabilities.experimental.catbuddy.languageFeatures.
const MethodLanguageFeature = "catbuddy/languageFeature"

// LanguageFeatureParams is the payload of catbuddy/languageFeature: an
// LSP method and that method's standard params. The result is the
// method's standard result, merged over the editor's language servers.
type LanguageFeatureParams struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// DefaultLanguageFeatureTimeout bounds one catbuddy/languageFeature
// request: a language server that is still indexing answers
// references on a large project within seconds; one that hangs must not
// hold the run.
const DefaultLanguageFeatureTimeout = 20 * time.Second

// clientLanguageFeatures returns the LSP methods the client said it
// answers, in capabilities.experimental.catbuddy.languageFeatures.
func clientLanguageFeatures(caps protocol.ClientCapabilities) []string {
	if len(caps.Experimental) == 0 {
		return nil
	}
	var exp struct {
		Catbuddy struct {
			LanguageFeatures []string `json:"languageFeatures"`
		} `json:"catbuddy"`
	}
	if json.Unmarshal(caps.Experimental, &exp) != nil {
		return nil
	}
	return exp.Catbuddy.LanguageFeatures
}

// editorLanguage is the lspfeatures.Conn of an editor session: every
// question goes to the client as catbuddy/languageFeature.
type editorLanguage struct {
	s       *Server
	methods []string
	timeout time.Duration
}

var _ lspfeatures.Conn = (*editorLanguage)(nil)

// languageFeatures returns the tools' language features of this
// connection, or nil when the client answers none of the methods the
// language tools use (then they are not offered).
func (s *Server) languageFeatures(timeout time.Duration) tools.LanguageFeatures {
	var methods []string
	for _, m := range clientLanguageFeatures(s.Capabilities()) {
		if slices.Contains(lspfeatures.Methods, m) || m == protocol.MethodCodeActionResolve {
			methods = append(methods, m)
		}
	}
	if len(methods) == 0 {
		return nil
	}
	if timeout <= 0 {
		timeout = DefaultLanguageFeatureTimeout
	}
	return &pendingLanguage{Features: &lspfeatures.Features{Conn: &editorLanguage{s: s, methods: methods, timeout: timeout}}, s: s}
}

// Supports implements lspfeatures.Conn: the client answers for every
// file it has a language server for, which only it knows.
func (l *editorLanguage) Supports(method, path string) bool {
	return slices.Contains(l.methods, method)
}

// Open implements lspfeatures.Conn: the editor knows its buffers; a
// file that is not open is named by its file URI.
func (l *editorLanguage) Open(ctx context.Context, path string, content []byte) (uri.URI, protocol.PositionEncodingKind, error) {
	if b, ok := l.s.overlay.ByPath(path); ok {
		return b.URI, l.s.PositionEncoding(), nil
	}
	return fileuri.FromPath(path), l.s.PositionEncoding(), nil
}

// Encoding implements lspfeatures.Conn: positions in catbuddy/languageFeature
// use the encoding negotiated with cb-ls; the client converts for its
// other servers.
func (l *editorLanguage) Encoding(string) protocol.PositionEncodingKind {
	return l.s.PositionEncoding()
}

// Call implements lspfeatures.Conn. The request is cancelled with
// $/cancelRequest when ctx ends or the timeout passes.
func (l *editorLanguage) Call(ctx context.Context, path, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	cctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	var res jsonrpc2.RawMessage
	err = protocol.Call(cctx, l.s.conn, MethodLanguageFeature, &LanguageFeatureParams{Method: method, Params: raw}, &res)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return json.RawMessage(res), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		l.s.log.Warn("language feature timed out", "method", method, "timeout", l.timeout)
		return nil, fmt.Errorf("the editor's language server did not answer %s within %v (it may be busy indexing or hung); the request was cancelled", method, l.timeout)
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound:
		return nil, fmt.Errorf("%w: the editor does not implement %s for %s", tools.ErrNoLanguageServer, MethodLanguageFeature, method)
	case errors.As(err, &rpcErr):
		return nil, &lspfeatures.RequestError{Method: method, Code: int64(rpcErr.Code), Message: rpcErr.Message}
	}
	return nil, fmt.Errorf("%s: %w", method, err)
}
