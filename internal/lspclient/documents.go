package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// document is a file a server has open, as the server last heard of it.
type document struct {
	uri     uri.URI
	version int32
	content []byte
	// changed is when the server was last told of a change (didOpen
	// included): the diagnostics settle after it (diagnostics.go).
	changed time.Time
}

// languageID names the language of path for didOpen.
func languageID(path string) string {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch ext {
	case "go":
		return "go"
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "py":
		return "python"
	case "rs":
		return "rust"
	case "c", "h":
		return "c"
	case "cc", "cpp", "hpp", "cxx":
		return "cpp"
	case "":
		return "plaintext"
	}
	return ext
}

// open makes the server see path with content: didOpen the first time,
// a full didChange when the content differs from what it has.
func (s *server) open(ctx context.Context, path string, content []byte) (uri.URI, error) {
	s.mu.Lock()
	d := s.docs[path]
	if d != nil && bytes.Equal(d.content, content) {
		s.mu.Unlock()
		return d.uri, nil
	}
	if d == nil {
		d = &document{uri: fileuri.FromPath(path), version: 1, content: bytes.Clone(content), changed: time.Now()}
		s.docs[path] = d
		s.mu.Unlock()
		return d.uri, s.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, map[string]any{
			"textDocument": map[string]any{"uri": d.uri, "languageId": languageID(path), "version": d.version, "text": string(content)},
		})
	}
	d.version++
	d.content = bytes.Clone(content)
	d.changed = time.Now()
	v := d.version
	s.mu.Unlock()
	return d.uri, s.didChange(ctx, d.uri, v, content)
}

func (s *server) didChange(ctx context.Context, u uri.URI, version int32, content []byte) error {
	return s.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": string(content)}},
	})
}

// refresh brings every open document but except up to date with the
// disk: a command the agent ran (gofmt, a generator) may have changed it.
// Those shown with a run's content are the view's (showView).
func (s *server) refresh(ctx context.Context, except string) {
	s.mu.Lock()
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		if p != except && !s.shown[p] {
			paths = append(paths, p)
		}
	}
	s.mu.Unlock()
	for _, p := range paths {
		content, err := os.ReadFile(p)
		if err != nil {
			s.changed(ctx, p, nil, true)
			continue
		}
		s.changed(ctx, p, content, false)
	}
}

// changed tells the server that path holds content now (or is gone).
func (s *server) changed(ctx context.Context, path string, content []byte, deleted bool) {
	s.mu.Lock()
	d := s.docs[path]
	switch {
	case d != nil && deleted:
		delete(s.docs, path)
		s.mu.Unlock()
		_ = s.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": d.uri}})
		s.watched(ctx, path, 3)
		return
	case d != nil:
		if bytes.Equal(d.content, content) {
			s.mu.Unlock()
			return
		}
		d.version++
		d.content = bytes.Clone(content)
		d.changed = time.Now()
		v := d.version
		s.mu.Unlock()
		_ = s.didChange(ctx, d.uri, v, content)
		return
	}
	s.mu.Unlock()
	typ := 2 // changed
	if deleted {
		typ = 3
	}
	s.watched(ctx, path, typ)
}

// watched sends workspace/didChangeWatchedFiles for one file.
func (s *server) watched(ctx context.Context, path string, typ int) {
	_ = s.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{
		"changes": []map[string]any{{"uri": fileuri.FromPath(path), "type": typ}},
	})
}

// providerOf maps a method to its ServerCapabilities field.
var providerOf = map[string]string{
	protocol.MethodTextDocumentDefinition:           "definitionProvider",
	protocol.MethodTextDocumentTypeDefinition:       "typeDefinitionProvider",
	protocol.MethodTextDocumentImplementation:       "implementationProvider",
	protocol.MethodTextDocumentReferences:           "referencesProvider",
	protocol.MethodTextDocumentHover:                "hoverProvider",
	protocol.MethodTextDocumentDocumentSymbol:       "documentSymbolProvider",
	protocol.MethodWorkspaceSymbol:                  "workspaceSymbolProvider",
	protocol.MethodTextDocumentPrepareCallHierarchy: "callHierarchyProvider",
	protocol.MethodCallHierarchyIncomingCalls:       "callHierarchyProvider",
	protocol.MethodCallHierarchyOutgoingCalls:       "callHierarchyProvider",
	protocol.MethodTextDocumentRename:               "renameProvider",
	protocol.MethodTextDocumentCodeAction:           "codeActionProvider",
	protocol.MethodTextDocumentFormatting:           "documentFormattingProvider",
	protocol.MethodTextDocumentRangeFormatting:      "documentRangeFormattingProvider",
}

// supports reads the server's capabilities: a provider that is true or
// an options object. prepareRename and codeAction/resolve are options
// inside renameProvider and codeActionProvider.
func (s *server) supports(method string) bool {
	switch method {
	case protocol.MethodTextDocumentPrepareRename:
		var o struct {
			PrepareProvider bool `json:"prepareProvider"`
		}
		return json.Unmarshal(s.caps["renameProvider"], &o) == nil && o.PrepareProvider
	case protocol.MethodCodeActionResolve:
		var o struct {
			ResolveProvider bool `json:"resolveProvider"`
		}
		return json.Unmarshal(s.caps["codeActionProvider"], &o) == nil && o.ResolveProvider
	}
	raw := bytes.TrimSpace(s.caps[providerOf[method]])
	return len(raw) > 0 && !bytes.Equal(raw, []byte("false")) && !bytes.Equal(raw, []byte("null"))
}
