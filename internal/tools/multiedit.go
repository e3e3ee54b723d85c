package tools

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

//go:embed multiedit.md
var multiEditDescription string

type multiEditInput struct {
	Path  string          `json:"path"`
	Edits []multiEditStep `json:"edits"`
}

type multiEditStep struct {
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

// MultiEdit is the multi_edit tool.
func MultiEdit(tc *ToolContext) Tool {
	return NewTool("multi_edit", multiEditDescription, func(ctx context.Context, in multiEditInput) (Result, error) {
		return tc.multiEdit(ctx, in)
	})
}

func (tc *ToolContext) multiEdit(ctx context.Context, in multiEditInput) (Result, error) {
	if len(in.Edits) == 0 {
		return Errorf("edits is empty: give at least one {old_string, new_string}"), nil
	}
	p, doc, err := tc.openDoc(ctx, in.Path)
	if err != nil {
		return docErrorAt(in.Path, p, err), ctx.Err()
	}
	if safefile.LooksBinary(doc.Content) {
		return Errorf("%s is a binary file; multi_edit edits text files only", in.Path), nil
	}
	warning := tc.readWarning(ctx, "multi_edit", p.Abs)
	cur := doc.Content
	var spans editSpans
	for i, step := range in.Edits {
		fail := func(msg string) (Result, error) {
			msg = strings.TrimPrefix(msg, "Error: ")
			return Errorf("edit %d of %d: %s\nNo edit was applied.%s", i+1, len(in.Edits), msg, tc.changedByNote(ctx, p.Abs)), nil
		}
		switch {
		case step.OldString == step.NewString:
			return fail("old_string and new_string are identical; the edit would change nothing")
		case step.OldString == "":
			return fail("old_string is empty: give the exact text to replace")
		}
		e, msg := findEdit(cur, step.OldString, step.NewString, spans.diskLine(doc.Content, cur))
		if msg != "" {
			return fail(msg)
		}
		next, err := diff.Apply(cur, []TextEdit{e})
		if err != nil {
			return fail(err.Error())
		}
		spans.add(e.Start, e.End, len(e.NewText))
		cur = next
	}
	c := Change{Path: p, Base: doc, Edits: spans.edits(cur), After: cur, Verbatim: true}
	return tc.commit(ctx, "multi_edit", c, warning)
}

// editSpans tracks, across edits applied one after another, which
// ranges of the original text were replaced by which ranges of the
// current text, so the editor receives edits against the original
// buffer: one per separate place, merged where later edits overlap or
// touch earlier ones.
type editSpans []editSpan

type editSpan struct {
	baseStart, baseEnd int // replaced range of the original text
	curStart, curEnd   int // its replacement in the current text
}

// add records that the current text's [start,end) became newLen bytes.
func (s *editSpans) add(start, end, newLen int) {
	m := editSpan{curStart: start, curEnd: end, baseStart: s.toBase(start, false), baseEnd: s.toBase(end, true)}
	var out editSpans
	for _, sp := range *s {
		if sp.curEnd < start || sp.curStart > end {
			out = append(out, sp)
			continue
		}
		// Overlapping or touching: one span covers both.
		m.curStart, m.curEnd = min(m.curStart, sp.curStart), max(m.curEnd, sp.curEnd)
		m.baseStart, m.baseEnd = min(m.baseStart, sp.baseStart), max(m.baseEnd, sp.baseEnd)
	}
	shift := newLen - (end - start)
	m.curEnd += shift
	for i := range out {
		if out[i].curStart > end {
			out[i].curStart += shift
			out[i].curEnd += shift
		}
	}
	out = append(out, m)
	slices.SortFunc(out, func(a, b editSpan) int { return cmp.Compare(a.curStart, b.curStart) })
	*s = out
}

// toBase maps an offset of the current text to the original text. An
// offset inside replaced text maps to the start or end of what it
// replaced.
func (s editSpans) toBase(off int, end bool) int {
	delta := 0
	for _, sp := range s {
		if sp.curStart < off && off < sp.curEnd {
			if end {
				return sp.baseEnd
			}
			return sp.baseStart
		}
		if sp.curEnd <= off {
			delta += (sp.curEnd - sp.curStart) - (sp.baseEnd - sp.baseStart)
		}
	}
	return off - delta
}

// edits returns the spans as TextEdits against the original text.
func (s editSpans) edits(cur []byte) []TextEdit {
	out := make([]TextEdit, len(s))
	for i, sp := range s {
		out[i] = TextEdit{Start: sp.baseStart, End: sp.baseEnd, NewText: string(cur[sp.curStart:sp.curEnd])}
	}
	return out
}

// diskLine maps a line of the current text (1-based) to the line of the
// original text, the file as the model read it, so that an error after
// earlier edits names lines the model can find. A line inside an earlier
// edit's new text maps to the line where that edit starts.
func (s editSpans) diskLine(base, cur []byte) func(int) int {
	return func(l int) int {
		off := 0
		for i := 1; i < l && off < len(cur); i++ {
			j := bytes.IndexByte(cur[off:], '\n')
			if j < 0 {
				off = len(cur)
				break
			}
			off += j + 1
		}
		b := min(s.toBase(off, false), len(base))
		return 1 + bytes.Count(base[:b], nl)
	}
}
