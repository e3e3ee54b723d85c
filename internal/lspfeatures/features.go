package lspfeatures

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Conn carries LSP requests to whoever answers them: the editor's other
// language servers, or language servers cb-ls started.
type Conn interface {
	// Supports reports whether method (an LSP method name) can be
	// answered for the file at the absolute path ("" for any file).
	Supports(method, path string) bool
	// Open makes the file at path with content known to the servers that
	// answer for it (the editor has its buffers already; a started server
	// needs didOpen or didChange) and returns the URI to name it by and
	// the position encoding of its server.
	Open(ctx context.Context, path string, content []byte) (uri.URI, protocol.PositionEncodingKind, error)
	// Encoding is the position encoding for the file at path.
	Encoding(path string) protocol.PositionEncodingKind
	// Call sends an LSP request about the file at path ("" for the
	// workspace) and returns its raw result ("null" for no answer).
	Call(ctx context.Context, path, method string, params any) (json.RawMessage, error)
}

// Features implements tools.LanguageFeatures over a Conn.
type Features struct {
	Conn Conn
}

var _ tools.LanguageFeatures = (*Features)(nil)

// methodOf is the LSP method each operation needs first.
var methodOf = map[tools.LanguageOp]string{
	tools.OpDefinition:       protocol.MethodTextDocumentDefinition,
	tools.OpTypeDefinition:   protocol.MethodTextDocumentTypeDefinition,
	tools.OpImplementation:   protocol.MethodTextDocumentImplementation,
	tools.OpReferences:       protocol.MethodTextDocumentReferences,
	tools.OpHover:            protocol.MethodTextDocumentHover,
	tools.OpDocumentSymbols:  protocol.MethodTextDocumentDocumentSymbol,
	tools.OpWorkspaceSymbols: protocol.MethodWorkspaceSymbol,
	tools.OpIncomingCalls:    protocol.MethodCallHierarchyIncomingCalls,
	tools.OpOutgoingCalls:    protocol.MethodCallHierarchyOutgoingCalls,
	tools.OpPrepareRename:    protocol.MethodTextDocumentPrepareRename,
	tools.OpRename:           protocol.MethodTextDocumentRename,
	tools.OpCodeAction:       protocol.MethodTextDocumentCodeAction,
}

// Methods lists every LSP method the language tools use, in the order
// docs/PROTOCOL.md names them.
var Methods = []string{
	protocol.MethodTextDocumentDefinition,
	protocol.MethodTextDocumentTypeDefinition,
	protocol.MethodTextDocumentImplementation,
	protocol.MethodTextDocumentReferences,
	protocol.MethodTextDocumentHover,
	protocol.MethodTextDocumentDocumentSymbol,
	protocol.MethodWorkspaceSymbol,
	protocol.MethodTextDocumentPrepareCallHierarchy,
	protocol.MethodCallHierarchyIncomingCalls,
	protocol.MethodCallHierarchyOutgoingCalls,
	protocol.MethodTextDocumentPrepareRename,
	protocol.MethodTextDocumentRename,
	protocol.MethodTextDocumentCodeAction,
	protocol.MethodTextDocumentFormatting,
}

// Supports implements tools.LanguageFeatures.
func (f *Features) Supports(op tools.LanguageOp, path string) bool {
	m, ok := methodOf[op]
	if !ok || !f.Conn.Supports(m, path) {
		return false
	}
	if op == tools.OpIncomingCalls || op == tools.OpOutgoingCalls {
		return f.Conn.Supports(protocol.MethodTextDocumentPrepareCallHierarchy, path)
	}
	return true
}

// textDocument and positionParams are the standard params, written out
// so that what goes on the wire is exactly the LSP shape.
type textDocument struct {
	URI uri.URI `json:"uri"`
}

type positionParams struct {
	TextDocument textDocument      `json:"textDocument"`
	Position     protocol.Position `json:"position"`
}

// at opens at's document and returns the position params for it. The
// document is opened first: a server cb-ls starts knows its capabilities
// only once it runs.
func (f *Features) at(ctx context.Context, op tools.LanguageOp, at tools.Position) (positionParams, protocol.PositionEncodingKind, error) {
	u, enc, err := f.Conn.Open(ctx, at.Path, at.Content)
	if err != nil {
		return positionParams{}, "", err
	}
	if !f.Supports(op, at.Path) {
		return positionParams{}, "", fmt.Errorf("%w (%s)", tools.ErrNoLanguageServer, methodOf[op])
	}
	return positionParams{TextDocument: textDocument{URI: u}, Position: PositionOf(at.Content, at.Offset, enc)}, enc, nil
}

// isNull reports an empty answer.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// decodeList decodes a result that is one T, an array of T, or null.
func decodeList[T any](raw json.RawMessage) ([]T, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] == '[' {
		var out []T
		err := json.Unmarshal(raw, &out)
		return out, err
	}
	var one T
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	return []T{one}, nil
}

// pathOf returns the absolute path of a file URI, "" for other schemes
// (and for a file URI that names no local file).
func pathOf(u uri.URI) string {
	p, err := fileuri.ToPath(u)
	if err != nil {
		return ""
	}
	return p
}

// lines turns an LSP range into a 1-based line range. A range that ends
// at the start of a line ends on the line before.
func lines(r protocol.Range) (int, int) {
	start, end := int(r.Start.Line)+1, int(r.End.Line)+1
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		end--
	}
	return start, max(start, end)
}

func location(u uri.URI, r protocol.Range) tools.Location {
	l, e := lines(r)
	p := pathOf(u)
	if p == "" {
		p = string(u)
	}
	return tools.Location{Path: p, Line: l, EndLine: e, Column: int(r.Start.Character) + 1}
}

// badAnswer wraps a result that does not decode.
func badAnswer(method string, err error) error {
	return fmt.Errorf("the language server's answer to %s is malformed: %v", method, err)
}
