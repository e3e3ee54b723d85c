package lspfeatures

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// ContentOpener is implemented by a Conn whose Open makes the server
// see exactly the content given (a server cb-ls started). Only there can
// a change be formatted before it is applied: the editor's servers see
// the editor's buffers.
type ContentOpener interface {
	OpensContent() bool
}

// TextFormatter is implemented by a Conn that formats a text it is
// given without any buffer or file taking it (the editor, through
// catbuddy/formatText): the editor's servers format only buffers, so the
// editor formats a scratch copy with its own formatter for the file's
// language.
type TextFormatter interface {
	// FormatsText says whether FormatText can be asked at all.
	FormatsText() bool
	// FormatText returns content formatted as the file at path would be.
	// An error that Is tools.ErrNoFormatter means there is no formatter.
	FormatText(ctx context.Context, path string, content []byte, opts map[string]any) ([]byte, error)
}

// FormattedByEditor is the remark added to the answer of a change the
// editor formatted.
const FormattedByEditor = "formatted by the editor"

// errBuffersOnly is why a change is not formatted in an editor that
// cannot format a text for cb-ls.
var errBuffersOnly error = noFormatter("the editor's language servers format only its buffers, and this editor does not format a text for cb-ls (catbuddy/formatText)")

// noFormatter is an ErrNoFormatter with its own reason.
type noFormatter string

func (e noFormatter) Error() string        { return string(e) }
func (e noFormatter) Is(target error) bool { return target == tools.ErrNoFormatter }

// Format implements tools.LanguageFormatter: textDocument/rangeFormatting
// of the changed lines where the server offers it, else
// textDocument/formatting of the whole file when the file was formatted
// before the change. The server is shown the file as it is again
// afterwards: the change is not applied yet, and may be refused.
func (f *Features) Format(ctx context.Context, path string, before, after []byte, changed [][2]int) ([]tools.TextEdit, error) {
	if tf, ok := f.Conn.(TextFormatter); ok && tf.FormatsText() {
		return formatText(ctx, tf, path, before, after)
	}
	if o, ok := f.Conn.(ContentOpener); !ok || !o.OpensContent() {
		return nil, errBuffersOnly
	}
	byRange := f.Conn.Supports(protocol.MethodTextDocumentRangeFormatting, path)
	if !byRange && !f.Conn.Supports(protocol.MethodTextDocumentFormatting, path) {
		return nil, tools.ErrNoFormatter
	}
	defer func() { _, _, _ = f.Conn.Open(context.WithoutCancel(ctx), path, before) }()
	opts := formattingOptions(after)
	if byRange {
		var out []tools.TextEdit
		for _, r := range lineRanges(after, changed) {
			edits, err := f.format(ctx, protocol.MethodTextDocumentRangeFormatting, path, after, opts, &r)
			if err != nil {
				return nil, err
			}
			out = append(out, edits...)
		}
		slices.SortStableFunc(out, func(a, b tools.TextEdit) int { return a.Start - b.Start })
		return slices.CompactFunc(out, func(a, b tools.TextEdit) bool { return a == b }), nil
	}
	edits, err := f.format(ctx, protocol.MethodTextDocumentFormatting, path, before, opts, nil)
	if err != nil {
		return nil, err
	}
	if len(edits) > 0 {
		return nil, tools.ErrUnformatted
	}
	return f.format(ctx, protocol.MethodTextDocumentFormatting, path, after, opts, nil)
}

// formatText formats the whole of after with a TextFormatter, when
// before was formatted already (else formatting would rewrite lines the
// change did not touch: tools.ErrUnformatted), and returns one edit
// replacing after, or none when it is formatted as it is. Both texts are
// asked about at once: each answer may take the editor's formatter a
// while.
func formatText(ctx context.Context, tf TextFormatter, path string, before, after []byte) ([]tools.TextEdit, error) {
	// The file's own indentation, not the one of the text the change
	// brought: that is what the formatter is to restore.
	opts := formattingOptions(before)
	type answer struct {
		text []byte
		err  error
	}
	was := make(chan answer, 1)
	go func() {
		text, err := tf.FormatText(ctx, path, before, opts)
		was <- answer{text, err}
	}()
	formatted, err := tf.FormatText(ctx, path, after, opts)
	b := <-was
	// An editor may answer "no formatter" for a text that its formatter
	// leaves as it is: VS Code's format commands answer nothing when no
	// formatter has an edit, as when there is no formatter at all. Where
	// the other text did get a formatter's answer, a formatter exists,
	// so "none" means that text needs no change.
	switch wasNone, nowNone := errors.Is(b.err, tools.ErrNoFormatter), errors.Is(err, tools.ErrNoFormatter); {
	case wasNone && err == nil:
		b = answer{before, nil}
	case nowNone && b.err == nil:
		formatted, err = after, nil
	}
	switch {
	case b.err != nil:
		return nil, b.err
	case !bytes.Equal(b.text, before):
		return nil, tools.ErrUnformatted
	case err != nil:
		return nil, err
	}
	tools.NoteLanguageChange(ctx, FormattedByEditor)
	if bytes.Equal(formatted, after) {
		return nil, nil
	}
	return []tools.TextEdit{{Start: 0, End: len(after), NewText: string(formatted)}}, nil
}

// format asks one formatting method about content (the whole file, or
// the byte range r) and converts its answer to byte edits of content,
// leaving out those that change nothing.
func (f *Features) format(ctx context.Context, method, path string, content []byte, opts map[string]any, r *[2]int) ([]tools.TextEdit, error) {
	u, enc, err := f.Conn.Open(ctx, path, content)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"textDocument": textDocument{URI: u}, "options": opts}
	if r != nil {
		params["range"] = protocol.Range{Start: PositionOf(content, r[0], enc), End: PositionOf(content, r[1], enc)}
	}
	raw, err := f.Conn.Call(ctx, path, method, params)
	if err != nil {
		return nil, err
	}
	tes, err := decodeList[textEdit](raw)
	if err != nil {
		return nil, badAnswer(method, err)
	}
	out := make([]tools.TextEdit, 0, len(tes))
	for _, te := range tes {
		e := tools.TextEdit{Start: OffsetOf(content, te.Range.Start, enc), End: OffsetOf(content, te.Range.End, enc), NewText: te.NewText}
		if e.End < e.Start || string(content[e.Start:e.End]) == e.NewText {
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b tools.TextEdit) int { return a.Start - b.Start })
	return out, nil
}

// lineRanges widens byte ranges to whole lines and joins those that
// touch, so each changed block is formatted once.
func lineRanges(content []byte, ranges [][2]int) [][2]int {
	var out [][2]int
	for _, r := range ranges {
		start := bytes.LastIndexByte(content[:min(r[0], len(content))], '\n') + 1
		end := min(r[1], len(content))
		if k := bytes.IndexByte(content[end:], '\n'); k >= 0 {
			end += k + 1
		} else {
			end = len(content)
		}
		if n := len(out); n > 0 && start <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], end)
			continue
		}
		out = append(out, [2]int{start, end})
	}
	return out
}

// formattingOptions are FormattingOptions in the file's own indentation:
// tabs where its lines start with one, else spaces (four, or two where
// its indented lines use two).
func formattingOptions(content []byte) map[string]any {
	tabs, two, four := 0, 0, 0
	for line := range bytes.Lines(content) {
		switch {
		case bytes.HasPrefix(line, []byte("\t")):
			tabs++
		case bytes.HasPrefix(line, []byte("    ")):
			four++
		case bytes.HasPrefix(line, []byte("  ")):
			two++
		}
	}
	size := 4
	if two > four {
		size = 2
	}
	return map[string]any{"tabSize": size, "insertSpaces": tabs <= two+four, "trimTrailingWhitespace": true}
}
