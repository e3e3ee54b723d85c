package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The editor's language servers format only its buffers, and a change
// of rename_symbol, code_action or replace_symbol is not in a buffer
// before the user keeps it. So cb-ls hands the editor the text a change
// leaves and the editor formats a scratch copy with its own formatter
// for the language (docs/PROTOCOL.md, catbuddy/formatText); the result
// is folded into the change before it is pending or reviewed.

// MethodFormatText is the server→client request that formats a text
// with the editor's formatter, without touching the user's buffer. The
// client declares it with capabilities.experimental.catbuddy.formatText.
const MethodFormatText = "catbuddy/formatText"

// FormatTextParams is the payload of catbuddy/formatText: the file the
// text belongs to (its language, and the project whose formatter
// settings apply), the text, and formatting options as a hint.
type FormatTextParams struct {
	URI        uri.URI        `json:"uri"`
	Text       string         `json:"text"`
	LanguageID string         `json:"languageId,omitempty"`
	Options    map[string]any `json:"options,omitempty"`
}

// FormatTextResult is the answer: TextEdits against the given text (in
// the negotiated position encoding), or the whole formatted text. A null
// answer means the editor has no formatter for the language.
type FormatTextResult struct {
	Edits []struct {
		Range   protocol.Range `json:"range"`
		NewText string         `json:"newText"`
	} `json:"edits,omitempty"`
	Whole *string `json:"whole,omitempty"`
}

// DefaultFormatTextTimeout bounds one catbuddy/formatText request, as
// DefaultLanguageFeatureTimeout bounds the other questions: a formatter
// answers in well under a second once its server is up, but the first
// text of a language may wait for the server to start and load a
// project; one that hangs must not hold the change.
const DefaultFormatTextTimeout = 20 * time.Second

// clientFormatsText reports whether the client declared
// capabilities.experimental.catbuddy.formatText.
func clientFormatsText(caps protocol.ClientCapabilities) bool {
	if len(caps.Experimental) == 0 {
		return false
	}
	var exp struct {
		Catbuddy struct {
			FormatText bool `json:"formatText"`
		} `json:"catbuddy"`
	}
	return json.Unmarshal(caps.Experimental, &exp) == nil && exp.Catbuddy.FormatText
}

var _ lspfeatures.TextFormatter = (*editorLanguage)(nil)

// FormatsText implements lspfeatures.TextFormatter.
func (l *editorLanguage) FormatsText() bool { return clientFormatsText(l.s.Capabilities()) }

// FormatText implements lspfeatures.TextFormatter with
// catbuddy/formatText, bounded by DefaultFormatTextTimeout (or the
// language feature timeout when shorter).
func (l *editorLanguage) FormatText(ctx context.Context, path string, content []byte, opts map[string]any) ([]byte, error) {
	p := FormatTextParams{URI: fileuri.FromPath(path), Text: string(content), Options: opts}
	if b, ok := l.s.overlay.ByPath(path); ok {
		p.URI, p.LanguageID = b.URI, b.LanguageID
	}
	timeout := min(DefaultFormatTextTimeout, l.timeout)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res *FormatTextResult
	err := protocol.Call(cctx, l.s.conn, MethodFormatText, &p, &res)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		l.s.log.Warn("formatText timed out", "path", path, "timeout", timeout)
		return nil, fmt.Errorf("the editor's formatter did not answer within %v", timeout)
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound:
		return nil, noFormatter("the editor does not implement " + MethodFormatText)
	case errors.As(err, &rpcErr):
		return nil, fmt.Errorf("the editor's formatter failed: %s", rpcErr.Message)
	default:
		return nil, fmt.Errorf("%s: %w", MethodFormatText, err)
	}
	if res == nil || (res.Whole == nil && res.Edits == nil) {
		return nil, noFormatter("the editor has no formatter for " + languageName(p.LanguageID, path) + " files")
	}
	if res.Whole != nil {
		return []byte(*res.Whole), nil
	}
	enc := l.s.PositionEncoding()
	edits := make([]tools.TextEdit, 0, len(res.Edits))
	for _, te := range res.Edits {
		edits = append(edits, tools.TextEdit{Start: lspfeatures.OffsetOf(content, te.Range.Start, enc),
			End: lspfeatures.OffsetOf(content, te.Range.End, enc), NewText: te.NewText})
	}
	slices.SortStableFunc(edits, func(a, b tools.TextEdit) int { return a.Start - b.Start })
	out, err := diff.Apply(content, edits)
	if err != nil {
		return nil, fmt.Errorf("the editor's formatter answered edits that do not apply: %v", err)
	}
	return out, nil
}

// noFormatter is a tools.ErrNoFormatter with the editor's reason.
type noFormatter string

func (e noFormatter) Error() string        { return string(e) }
func (e noFormatter) Is(target error) bool { return target == tools.ErrNoFormatter }

// languageName names a file's language for a note: its language id, or
// its extension.
func languageName(languageID, path string) string {
	if languageID != "" {
		return languageID
	}
	if ext := filepath.Ext(path); ext != "" {
		return ext
	}
	return filepath.Base(path)
}
