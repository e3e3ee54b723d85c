package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

//go:embed edit.md
var editFileDescription string

type editFileInput struct {
	Path      string `json:"path"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

// EditFile is the edit_file tool.
func EditFile(tc *ToolContext) Tool {
	return NewTool("edit_file", editFileDescription, func(ctx context.Context, in editFileInput) (Result, error) {
		return tc.editFile(ctx, in)
	})
}

func (tc *ToolContext) editFile(ctx context.Context, in editFileInput) (Result, error) {
	if in.OldString == in.NewString {
		return Errorf("old_string and new_string are identical; the edit would change nothing"), nil
	}
	p, doc, err := tc.openDoc(ctx, in.Path)
	if errors.Is(err, ErrNotExist) && p.Abs != "" && in.OldString == "" {
		// An empty old_string on a missing file creates it, as an editor's
		// "new file" would: nothing existed that could be overwritten.
		c := Change{Path: p, Create: true, Edits: []TextEdit{{NewText: in.NewString}}, After: []byte(in.NewString), Verbatim: true}
		return tc.commit(ctx, "edit_file", c, "")
	}
	if err != nil {
		return docErrorAt(in.Path, p, err), ctx.Err()
	}
	if safefile.LooksBinary(doc.Content) {
		return Errorf("%s is a binary file; edit_file edits text files only", in.Path), nil
	}
	if in.OldString == "" && len(doc.Content) > 0 {
		return Errorf("old_string is empty, but %s is not: give the exact text to replace (or use write_file to replace the whole file)", in.Path), nil
	}
	warning := tc.readWarning(ctx, "edit_file", p.Abs)
	e, msg := findEdit(doc.Content, in.OldString, in.NewString, nil)
	if msg != "" {
		return Result{Output: msg + tc.changedByNote(ctx, p.Abs), IsError: true}, nil
	}
	after, err := diff.Apply(doc.Content, []TextEdit{e})
	if err != nil {
		return Errorf("edit_file: %v", err), nil
	}
	c := Change{Path: p, Base: doc, Edits: []TextEdit{e}, After: after, Verbatim: true}
	return tc.commit(ctx, "edit_file", c, warning)
}

// Messages the model sees when old_string does not pick one place.
const (
	notFoundMessage = "Error: old_string not found in file"
	ambiguousFormat = "Error: old_string matches %d times — must be unique. Provide more context."
)

// findEdit locates old in content and returns the edit that replaces it
// with new, or the error message for the model. The match is literal;
// the only tolerance is line endings: in a CRLF file, old and new written
// with "\n" are taken as "\r\n" (and the reverse in an LF file), so the
// file keeps its line endings. Whatever form matches must match exactly
// once. lineNo maps a line of content (1-based) to the line messages
// name; nil names content's own lines.
func findEdit(content []byte, old, new string, lineNo func(int) int) (TextEdit, string) {
	if lineNo == nil {
		lineNo = func(l int) int { return l }
	}
	if old == "" { // only for an empty file: insert at the start
		return TextEdit{NewText: adaptNewlines(content, new)}, ""
	}
	type form struct{ old, new string }
	var forms []form
	crlf := usesCRLF(content)
	if crlf {
		if o := toCRLF(old); o != old {
			forms = append(forms, form{o, toCRLF(new)})
		}
		forms = append(forms, form{old, toCRLF(new)})
	} else {
		forms = append(forms, form{old, new})
		if o := strings.ReplaceAll(old, "\r\n", "\n"); o != old {
			forms = append(forms, form{o, strings.ReplaceAll(new, "\r\n", "\n")})
		}
	}
	for _, f := range forms {
		at, n := occurrences(content, f.old, 10)
		switch {
		case n == 1:
			return TextEdit{Start: at[0], End: at[0] + len(f.old), NewText: f.new}, ""
		case n > 1:
			return TextEdit{}, fmt.Sprintf(ambiguousFormat, n) + "\n" + matchLines(content, at, n, lineNo)
		}
	}
	return TextEdit{}, notFoundMessage + notFoundHint(content, old, lineNo)
}

// occurrences returns where sub occurs in s (overlapping matches count:
// "aa" in "aaa" is ambiguous), the first keep positions and the count.
func occurrences(s []byte, sub string, keep int) ([]int, int) {
	var at []int
	n := 0
	needle := []byte(sub)
	for i := 0; i <= len(s); {
		j := bytes.Index(s[i:], needle)
		if j < 0 {
			break
		}
		if len(at) < keep {
			at = append(at, i+j)
		}
		n++
		i += j + 1
	}
	return at, n
}

// matchLines says on which lines the matches start.
func matchLines(content []byte, at []int, n int, lineNo func(int) int) string {
	var b strings.Builder
	b.WriteString("(matches start at line")
	if n > 1 {
		b.WriteString("s")
	}
	line, pos := 1, 0
	for i, off := range at {
		line += bytes.Count(content[pos:off], nl)
		pos = off
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", lineNo(line))
	}
	if n > len(at) {
		fmt.Fprintf(&b, " and %d more", n-len(at))
	}
	b.WriteString(")")
	return b.String()
}

// usesCRLF reports whether content's line ending is CRLF, judged by its
// first line as editors do.
func usesCRLF(content []byte) bool {
	i := bytes.IndexByte(content, '\n')
	return i > 0 && content[i-1] == '\r'
}

// toCRLF turns every bare "\n" of s into "\r\n".
func toCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// adaptNewlines writes s with content's line ending.
func adaptNewlines(content []byte, s string) string {
	if usesCRLF(content) {
		return toCRLF(s)
	}
	return s
}
