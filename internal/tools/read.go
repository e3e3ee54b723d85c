package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Limits of one read_file answer. A model that needs more pages on with
// offset; the hint at the end says how. A read without a limit stops at
// readDefaultBytes too: a 1 MB source file's first 2000 lines are about
// 150 KB, which every later turn carries again. A limit the model gives
// raises the bound to readMaxBytes.
const (
	readDefaultLimit = 2000
	readDefaultBytes = 40 << 10
	readMaxLineChars = 2000
	readMaxBytes     = 256 << 10
)

// unchangedMessage answers a re-read of content the model already has.
const unchangedMessage = "File unchanged since last read at the same offset/limit."

//go:embed read.md
var readFileDescription string

type readFileInput struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// ReadFile is the read_file tool.
func ReadFile(tc *ToolContext) Tool {
	t := NewTool("read_file", readFileDescription, func(ctx context.Context, in readFileInput) (Result, error) {
		return tc.readFile(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) readFile(ctx context.Context, in readFileInput) (Result, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return Errorf("offset and limit must be positive (got offset=%d, limit=%d)", in.Offset, in.Limit), nil
	}
	offset, limit, maxBytes := max(in.Offset, 1), in.Limit, readMaxBytes
	if limit == 0 {
		limit, maxBytes = readDefaultLimit, readDefaultBytes
	}
	p, doc, err := tc.openDoc(ctx, in.Path)
	if err != nil {
		return docErrorAt(in.Path, p, err), ctx.Err()
	}
	states := tc.FileStates(ctx)
	if states.IsUnchanged(p.Abs, offset, limit, doc.Stamp, doc.Content) {
		return Text(unchangedMessage), nil
	}
	if safefile.LooksBinary(doc.Content) {
		return Errorf("%s is a binary file (%d bytes); read_file shows text files only", in.Path, len(doc.Content)), nil
	}
	total := countLines(doc.Content)
	if total == 0 {
		states.RecordRead(p.Abs, offset, limit, doc.Stamp, doc.Content)
		return Text(fmt.Sprintf("%s is empty (0 lines).", in.Path)), nil
	}
	if offset > total {
		return Errorf("offset %d is past the end of %s, which has %d line%s", offset, in.Path, total, plural(total)), nil
	}
	out := formatLines(doc.Content, offset, limit, total, maxBytes)
	states.RecordRead(p.Abs, offset, limit, doc.Stamp, doc.Content)
	return Result{Output: out, Read: &ReadText{Path: p.Abs, Bytes: len(out)}}, nil
}

// formatLines renders lines offset..offset+limit-1 (1-based) with line
// numbers, cutting long lines and stopping at maxBytes, and ends with a
// hint when the file goes on.
func formatLines(content []byte, offset, limit, total, maxBytes int) string {
	content = bytes.TrimPrefix(content, utf8BOM)
	pos := 0
	for line := 1; line < offset; line++ {
		pos += bytes.IndexByte(content[pos:], '\n') + 1
	}
	var b strings.Builder
	b.Grow(min(len(content)-pos, maxBytes) + 8*min(limit, total))
	n, cut, full := offset, false, false
	for ; n < offset+limit && n <= total; n++ {
		end := bytes.IndexByte(content[pos:], '\n')
		var line []byte
		if end < 0 {
			line, pos = content[pos:], len(content)
		} else {
			line, pos = content[pos:pos+end], pos+end+1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'}) // CRLF is shown as a plain line end; edit_file maps it back
		if b.Len()+min(len(line), 4*readMaxLineChars) > maxBytes && n > offset {
			full = true
			break
		}
		fmt.Fprintf(&b, "%d\t", n)
		if len(line) > readMaxLineChars && utf8.RuneCount(line) > readMaxLineChars {
			b.Write(firstRunes(line, readMaxLineChars))
			fmt.Fprintf(&b, "… [line cut: %d characters in all]", utf8.RuneCount(line))
			cut = true
		} else {
			b.Write(line)
		}
		b.WriteByte('\n')
	}
	last := n - 1
	switch {
	case last < total && full && maxBytes < readMaxBytes:
		fmt.Fprintf(&b, "\n(showing lines %d–%d of %d, the first %d KB; use offset=%d to read on, with limit for more lines at a time)", offset, last, total, maxBytes>>10, last+1)
	case last < total && full:
		fmt.Fprintf(&b, "\n(showing lines %d–%d of %d, %d KB; use offset=%d to read on)", offset, last, total, maxBytes>>10, last+1)
	case last < total:
		fmt.Fprintf(&b, "\n(showing lines %d–%d of %d; use offset=%d to read on)", offset, last, total, last+1)
	}
	if cut {
		b.WriteString("\n(some lines were cut at 2000 characters; grep can search inside them)")
	}
	return strings.TrimRight(b.String(), "\n")
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// nl is a newline, for counting and cutting lines.
var nl = []byte{'\n'}

// firstRunes returns the first n characters of s.
func firstRunes(s []byte, n int) []byte {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRune(s[i:])
		i += size
	}
	return s[:i]
}

// cutRunes returns at most n bytes of s, not splitting a UTF-8 sequence.
func cutRunes(s []byte, n int) []byte {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// countLines counts lines as an editor shows them: a final line without
// a newline counts, an empty file has none.
func countLines(s []byte) int {
	n := bytes.Count(s, nl)
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// openDoc resolves path through the guard and reads the document.
// Errors go to the model through docError.
func (tc *ToolContext) openDoc(ctx context.Context, path string) (guard.Path, Document, error) {
	p, err := tc.Resolve(path)
	if err != nil {
		return p, Document{}, err
	}
	doc, err := tc.workspace(ctx).Read(ctx, p)
	return p, doc, err
}

// docError phrases a failure of openDoc for the model.
func docError(path string, err error) Result {
	return docErrorAt(path, guard.Path{}, err)
}

// docErrorAt is docError for an admitted path p, which lets a missing
// file come with suggestions.
func docErrorAt(path string, p guard.Path, err error) Result {
	switch {
	case errors.Is(err, guard.ErrDenied), errors.Is(err, ErrNotRegular), errors.Is(err, ErrTooLarge):
		return Errorf("%v", err)
	case errors.Is(err, ErrNotExist):
		if p.Abs != "" {
			if near := similarFiles(p); len(near) > 0 {
				return Errorf("file not found: %s (did you mean %s?)", path, strings.Join(near, ", "))
			}
		}
		return Errorf("file not found: %s", path)
	case errors.Is(err, ErrIsDir):
		return Errorf("%s is a directory, not a file; use list_dir to see what it holds", path)
	}
	return Errorf("read %s: %v", path, err)
}
