package lspfeatures

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// locationOrLink decodes both Location and LocationLink.
type locationOrLink struct {
	URI                  uri.URI         `json:"uri"`
	Range                protocol.Range  `json:"range"`
	TargetURI            uri.URI         `json:"targetUri"`
	TargetRange          protocol.Range  `json:"targetRange"`
	TargetSelectionRange *protocol.Range `json:"targetSelectionRange"`
}

func (l locationOrLink) location() tools.Location {
	if l.TargetURI != "" {
		loc := location(l.TargetURI, l.TargetRange)
		if l.TargetSelectionRange != nil {
			loc.Line = int(l.TargetSelectionRange.Start.Line) + 1
			loc.EndLine = max(loc.EndLine, loc.Line)
			loc.Column = int(l.TargetSelectionRange.Start.Character) + 1
		}
		return loc
	}
	return location(l.URI, l.Range)
}

// Locations implements tools.LanguageFeatures.
func (f *Features) Locations(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Location, error) {
	pp, _, err := f.at(ctx, op, at)
	if err != nil {
		return nil, err
	}
	var params any = pp
	if op == tools.OpReferences {
		// The declaration is included, as a rename changes it too: the
		// two counts agree.
		type refContext struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		}
		params = struct {
			positionParams
			Context refContext `json:"context"`
		}{positionParams: pp, Context: refContext{IncludeDeclaration: true}}
	}
	method := methodOf[op]
	raw, err := f.Conn.Call(ctx, at.Path, method, params)
	if err != nil {
		return nil, err
	}
	ls, ok := fastLocations(raw)
	if !ok {
		if ls, err = decodeList[locationOrLink](raw); err != nil {
			return nil, badAnswer(method, err)
		}
	}
	out := make([]tools.Location, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.location())
	}
	return out, nil
}

// Hover implements tools.LanguageFeatures.
func (f *Features) Hover(ctx context.Context, at tools.Position) (string, error) {
	pp, _, err := f.at(ctx, tools.OpHover, at)
	if err != nil {
		return "", err
	}
	raw, err := f.Conn.Call(ctx, at.Path, protocol.MethodTextDocumentHover, pp)
	if err != nil {
		return "", err
	}
	// Editors merging several servers answer an array of hovers.
	hs, err := decodeList[struct {
		Contents json.RawMessage `json:"contents"`
	}](raw)
	if err != nil {
		return "", badAnswer(protocol.MethodTextDocumentHover, err)
	}
	var parts []string
	for _, h := range hs {
		parts = append(parts, markedText(h.Contents)...)
	}
	return strings.Join(parts, "\n\n"), nil
}

// markedText flattens MarkupContent, MarkedString and arrays of them.
func markedText(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return []string{s}
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		var out []string
		for _, it := range items {
			out = append(out, markedText(it)...)
		}
		return out
	case '{':
		var m struct {
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		if json.Unmarshal(raw, &m) == nil && strings.TrimSpace(m.Value) != "" {
			if m.Language != "" {
				return []string{"```" + m.Language + "\n" + m.Value + "\n```"}
			}
			return []string{m.Value}
		}
	}
	return nil
}

// symbol decodes DocumentSymbol, SymbolInformation and WorkspaceSymbol.
type symbol struct {
	Name           string              `json:"name"`
	Detail         string              `json:"detail"`
	Kind           protocol.SymbolKind `json:"kind"`
	ContainerName  string              `json:"containerName"`
	Range          *protocol.Range     `json:"range"`
	SelectionRange *protocol.Range     `json:"selectionRange"`
	Children       []symbol            `json:"children"`
	Location       *symbolLocation     `json:"location"`
}

type symbolLocation struct {
	URI   uri.URI         `json:"uri"`
	Range *protocol.Range `json:"range"`
}

// DocumentSymbols implements tools.LanguageFeatures.
func (f *Features) DocumentSymbols(ctx context.Context, at tools.Position) ([]tools.Symbol, error) {
	if !f.Supports(tools.OpDocumentSymbols, at.Path) {
		return nil, tools.ErrNoLanguageServer
	}
	u, enc, err := f.Conn.Open(ctx, at.Path, at.Content)
	if err != nil {
		return nil, err
	}
	method := protocol.MethodTextDocumentDocumentSymbol
	raw, err := f.Conn.Call(ctx, at.Path, method, struct {
		TextDocument textDocument `json:"textDocument"`
	}{textDocument{URI: u}})
	if err != nil {
		return nil, err
	}
	ss, err := decodeList[symbol](raw)
	if err != nil {
		return nil, badAnswer(method, err)
	}
	var conv func(ss []symbol) []tools.Symbol
	conv = func(ss []symbol) []tools.Symbol {
		out := make([]tools.Symbol, 0, len(ss))
		for _, s := range ss {
			r := s.Range
			if s.Location != nil && s.Location.Range != nil {
				if p := pathOf(s.Location.URI); p != "" && p != at.Path && s.Location.URI != u {
					continue // SymbolInformation of another file
				}
				r = s.Location.Range
			}
			if r == nil {
				continue
			}
			ts := tools.Symbol{Name: s.Name, Detail: s.Detail, Kind: kindName(s.Kind), Container: s.ContainerName,
				Location: location(u, *r), Start: OffsetOf(at.Content, r.Start, enc), End: OffsetOf(at.Content, r.End, enc),
				Children: conv(s.Children)}
			ts.Location.Path = at.Path
			out = append(out, ts)
		}
		return out
	}
	return conv(ss), nil
}

// WorkspaceSymbols implements tools.LanguageFeatures.
func (f *Features) WorkspaceSymbols(ctx context.Context, query string) ([]tools.Symbol, error) {
	method := protocol.MethodWorkspaceSymbol
	if !f.Conn.Supports(method, "") {
		return nil, tools.ErrNoLanguageServer
	}
	raw, err := f.Conn.Call(ctx, "", method, struct {
		Query string `json:"query"`
	}{query})
	if err != nil {
		return nil, err
	}
	ss, err := decodeList[symbol](raw)
	if err != nil {
		return nil, badAnswer(method, err)
	}
	out := make([]tools.Symbol, 0, len(ss))
	for _, s := range ss {
		if s.Location == nil {
			continue
		}
		var loc tools.Location
		if s.Location.Range != nil {
			loc = location(s.Location.URI, *s.Location.Range)
		} else {
			loc = location(s.Location.URI, protocol.Range{}) // WorkspaceSymbol without a range: the file
		}
		out = append(out, tools.Symbol{Name: s.Name, Kind: kindName(s.Kind), Container: s.ContainerName, Location: loc})
	}
	return out, nil
}

// kindName names an LSP SymbolKind for the model.
func kindName(k protocol.SymbolKind) string {
	names := [...]string{"", "file", "module", "namespace", "package", "class", "method", "property",
		"field", "constructor", "enum", "interface", "function", "variable", "constant", "string",
		"number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event",
		"operator", "type parameter"}
	if int(k) > 0 && int(k) < len(names) {
		return names[k]
	}
	return "symbol"
}
