package lspfeatures

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// workspaceEdit decodes a WorkspaceEdit: the changes map and the
// documentChanges array (text edits and file operations).
type workspaceEdit struct {
	Changes         map[uri.URI][]textEdit `json:"changes"`
	DocumentChanges []documentChange       `json:"documentChanges"`
}

type textEdit struct {
	Range   protocol.Range `json:"range"`
	NewText string         `json:"newText"`
	Snippet *struct {
		Value string `json:"value"`
	} `json:"snippet"`
}

// documentChange is a TextDocumentEdit (textDocument, edits) or a file
// operation (kind create, rename or delete).
type documentChange struct {
	Kind         string `json:"kind"`
	URI          string `json:"uri"`
	OldURI       string `json:"oldUri"`
	NewURI       string `json:"newUri"`
	TextDocument *struct {
		URI uri.URI `json:"uri"`
	} `json:"textDocument"`
	Edits []textEdit `json:"edits"`
}

// fileEdits converts a WorkspaceEdit to byte edits, reading each file
// with read. File operations are refused: the language tools change
// file contents only, and a half-applied rename of files is worse than
// none.
func fileEdits(raw json.RawMessage, enc func(path string) protocol.PositionEncodingKind, read tools.ReadFunc) ([]tools.FileEdit, error) {
	if isNull(raw) {
		return nil, nil
	}
	var we workspaceEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("malformed workspace edit: %v", err)
	}
	byURI := map[uri.URI][]textEdit{}
	var order []uri.URI
	add := func(u uri.URI, es []textEdit) {
		if _, ok := byURI[u]; !ok {
			order = append(order, u)
		}
		byURI[u] = append(byURI[u], es...)
	}
	var ops []string
	if len(we.DocumentChanges) > 0 {
		for _, dc := range we.DocumentChanges {
			switch {
			case dc.Kind != "":
				ops = append(ops, dc.Kind+" "+pathOrURI(dc.URI+dc.OldURI))
			case dc.TextDocument != nil:
				add(dc.TextDocument.URI, dc.Edits)
			}
		}
	} else {
		keys := make([]uri.URI, 0, len(we.Changes))
		for u := range we.Changes {
			keys = append(keys, u)
		}
		slices.Sort(keys)
		for _, u := range keys {
			add(u, we.Changes[u])
		}
	}
	if len(ops) > 0 {
		return nil, fmt.Errorf("the change would also %s; the language tools change file contents only", strings.Join(ops, ", "))
	}
	var out []tools.FileEdit
	for _, u := range order {
		path := pathOf(u)
		if path == "" {
			return nil, fmt.Errorf("the change names %s, which is not a file", u)
		}
		content, err := read(path)
		if err != nil {
			return nil, err
		}
		e := enc(path)
		fe := tools.FileEdit{Path: path}
		for _, te := range byURI[u] {
			text := te.NewText
			if te.Snippet != nil {
				return nil, fmt.Errorf("the change to %s is a snippet, which needs an editor", path)
			}
			fe.Edits = append(fe.Edits, tools.TextEdit{Start: OffsetOf(content, te.Range.Start, e), End: OffsetOf(content, te.Range.End, e), NewText: text})
		}
		out = append(out, fe)
	}
	return out, nil
}

func pathOrURI(s string) string {
	if p := pathOf(uri.URI(s)); p != "" {
		return p
	}
	return s
}

// PrepareRename implements tools.LanguageFeatures. A null answer or an
// error from the server means the symbol cannot be renamed there; a
// server without prepareRename lets rename decide.
func (f *Features) PrepareRename(ctx context.Context, at tools.Position) error {
	if _, _, err := f.Conn.Open(ctx, at.Path, at.Content); err != nil {
		return err
	}
	if !f.Supports(tools.OpPrepareRename, at.Path) {
		return nil
	}
	pp, _, err := f.at(ctx, tools.OpPrepareRename, at)
	if err != nil {
		return err
	}
	raw, err := f.Conn.Call(ctx, at.Path, protocol.MethodTextDocumentPrepareRename, pp)
	var re *RequestError
	switch {
	case errorAs(err, &re):
		return fmt.Errorf("%w: %s", tools.ErrCannotRename, re.Message)
	case err != nil:
		return err
	case isNull(raw):
		return fmt.Errorf("%w: the language server does not see a renamable symbol there", tools.ErrCannotRename)
	}
	return nil
}

// Rename implements tools.LanguageFeatures.
func (f *Features) Rename(ctx context.Context, at tools.Position, newName string, read tools.ReadFunc) ([]tools.FileEdit, error) {
	pp, _, err := f.at(ctx, tools.OpRename, at)
	if err != nil {
		return nil, err
	}
	raw, err := f.Conn.Call(ctx, at.Path, protocol.MethodTextDocumentRename, struct {
		positionParams
		NewName string `json:"newName"`
	}{pp, newName})
	if err != nil {
		return nil, err
	}
	if isNull(raw) {
		return nil, fmt.Errorf("the language server has no rename there")
	}
	return fileEdits(raw, f.Conn.Encoding, read)
}

// codeAction decodes a CodeAction or a bare Command (whose command field
// is a string).
type codeAction struct {
	Title       string          `json:"title"`
	Kind        string          `json:"kind"`
	IsPreferred bool            `json:"isPreferred"`
	Edit        json.RawMessage `json:"edit"`
	Command     json.RawMessage `json:"command"`
	Data        json.RawMessage `json:"data"`
	Disabled    *struct {
		Reason string `json:"reason"`
	} `json:"disabled"`
}

// DiagnosticsConn is implemented by a Conn that holds its server's
// diagnostics of a document (a server cb-ls started). A server offers its
// quick fixes for the diagnostics the request's context carries, as an
// editor sends them, so code actions are asked with those in range: an
// "undefined: halve" gets gopls's fix only when the request names it.
type DiagnosticsConn interface {
	// DiagnosticsIn returns the server's diagnostics of path, as it
	// published them once they settled, that overlap r.
	DiagnosticsIn(ctx context.Context, path string, r protocol.Range) []json.RawMessage
}

// maxFixedDiagnostics bounds the diagnostics whose quick fixes are asked
// for one by one in one code_action call.
const maxFixedDiagnostics = 8

// CodeActions implements tools.LanguageFeatures. Where the Conn has the
// server's diagnostics (DiagnosticsConn), those in range go with the
// request, and each one's quick fixes are asked for at its own range,
// as an editor asks with the cursor on it: a server locates the fix by
// the request's range (gopls's "Create function halve" is computed for
// the identifier there, and for a whole line finds none when resolved).
func (f *Features) CodeActions(ctx context.Context, at tools.Position, end int, kind string) ([]tools.CodeAction, error) {
	pp, enc, err := f.at(ctx, tools.OpCodeAction, at)
	if err != nil {
		return nil, err
	}
	r := protocol.Range{Start: pp.Position, End: PositionOf(at.Content, end, enc)}
	var diags []json.RawMessage
	if dc, ok := f.Conn.(DiagnosticsConn); ok {
		diags = dc.DiagnosticsIn(ctx, at.Path, r)
	}
	var only []string
	if kind != "" {
		only = []string{kind}
	}
	items, err := f.askActions(ctx, at.Path, pp.TextDocument, r, diags, only)
	if err != nil {
		return nil, err
	}
	if kind == "" || kind == "quickfix" || strings.HasPrefix(kind, "quickfix.") {
		items = f.withFixesAt(ctx, at.Path, pp.TextDocument, items, diags[:min(len(diags), maxFixedDiagnostics)])
	}
	var out []tools.CodeAction
	for _, item := range items {
		var a codeAction
		if err := json.Unmarshal(item, &a); err != nil {
			return nil, badAnswer(protocol.MethodTextDocumentCodeAction, err)
		}
		if kind != "" && a.Kind != "" && a.Kind != kind && !strings.HasPrefix(a.Kind, kind+".") {
			continue // a client that ignored only
		}
		out = append(out, f.action(at.Path, item, a))
	}
	return out, nil
}

// askActions sends one textDocument/codeAction and returns its items.
func (f *Features) askActions(ctx context.Context, path string, doc textDocument, r protocol.Range, diags []json.RawMessage, only []string) ([]json.RawMessage, error) {
	type actionContext struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
		Only        []string          `json:"only,omitempty"`
		TriggerKind int               `json:"triggerKind"`
	}
	if diags == nil {
		diags = []json.RawMessage{}
	}
	params := struct {
		TextDocument textDocument   `json:"textDocument"`
		Range        protocol.Range `json:"range"`
		Context      actionContext  `json:"context"`
	}{doc, r, actionContext{Diagnostics: diags, Only: only, TriggerKind: 1}}
	method := protocol.MethodTextDocumentCodeAction
	raw, err := f.Conn.Call(ctx, path, method, params)
	if err != nil {
		return nil, err
	}
	items, err := decodeList[json.RawMessage](raw)
	if err != nil {
		return nil, badAnswer(method, err)
	}
	return items, nil
}

// withFixesAt asks for each diagnostic's quick fixes at its own range
// and puts them in items: in place of the quick fix of the same title
// asked for the whole range, else at the end. A failed question leaves
// items as they are.
func (f *Features) withFixesAt(ctx context.Context, path string, doc textDocument, items, diags []json.RawMessage) []json.RawMessage {
	titleOf := func(item json.RawMessage) (title string, fix bool) {
		var a codeAction
		if json.Unmarshal(item, &a) != nil {
			return "", false
		}
		return a.Title, a.Kind == "quickfix" || strings.HasPrefix(a.Kind, "quickfix.")
	}
	for _, d := range diags {
		var dr struct {
			Range protocol.Range `json:"range"`
		}
		if json.Unmarshal(d, &dr) != nil {
			continue
		}
		fixes, err := f.askActions(ctx, path, doc, dr.Range, []json.RawMessage{d}, []string{"quickfix"})
		if err != nil {
			continue
		}
		for _, fix := range fixes {
			title, ok := titleOf(fix)
			if !ok {
				continue
			}
			i := slices.IndexFunc(items, func(item json.RawMessage) bool {
				t, isFix := titleOf(item)
				return isFix && t == title
			})
			if i < 0 {
				items = append(items, fix)
			} else {
				items[i] = fix
			}
		}
	}
	return items
}

// action converts one code action; its edit is converted (or resolved
// first) only when a tool applies it.
func (f *Features) action(path string, item json.RawMessage, a codeAction) tools.CodeAction {
	ta := tools.CodeAction{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred}
	if a.Disabled != nil {
		ta.Disabled = a.Disabled.Reason
		if ta.Disabled == "" {
			ta.Disabled = "the language server disabled it"
		}
	}
	cmd := bytes.TrimSpace(a.Command)
	if len(cmd) > 0 && cmd[0] == '"' { // a bare Command
		_ = json.Unmarshal(cmd, &ta.Command)
		return ta
	}
	if len(cmd) > 0 && !isNull(cmd) {
		var c struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(cmd, &c)
		ta.Command = c.Command
	}
	switch {
	case !isNull(a.Edit):
		edit := a.Edit
		ta.Edit = func(ctx context.Context, read tools.ReadFunc) ([]tools.FileEdit, error) {
			return fileEdits(edit, f.Conn.Encoding, read)
		}
	case len(a.Data) > 0 && f.Conn.Supports(protocol.MethodCodeActionResolve, path):
		ta.Edit = func(ctx context.Context, read tools.ReadFunc) ([]tools.FileEdit, error) {
			raw, err := f.Conn.Call(ctx, path, protocol.MethodCodeActionResolve, item)
			if err != nil {
				return nil, err
			}
			var resolved codeAction
			if err := json.Unmarshal(raw, &resolved); err != nil {
				return nil, badAnswer(protocol.MethodCodeActionResolve, err)
			}
			if isNull(resolved.Edit) {
				return nil, fmt.Errorf("the action has no edit, only a command")
			}
			return fileEdits(resolved.Edit, f.Conn.Encoding, read)
		}
	}
	return ta
}
