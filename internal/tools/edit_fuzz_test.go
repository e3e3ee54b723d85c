package tools

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// FuzzEditFile checks edit_file's invariant: either exactly one
// occurrence of old_string (or of its line-ending variant) was replaced
// by new_string (in the same variant) and every other byte is as it
// was, or the file is untouched and the result is an error.
//
//	go test -fuzz=FuzzEditFile ./tools/
func FuzzEditFile(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "b", "B")
	f.Add([]byte("one\r\ntwo\r\n"), "one\ntwo", "1\n2\n3")
	f.Add([]byte("\ufeffx = 1\n"), "x", "$1")
	f.Add([]byte("aaa"), "aa", "b")
	f.Add([]byte("no newline"), "newline", "")
	f.Add([]byte(""), "", "new")
	f.Add([]byte("a\r\nb\nc\r\n"), "b\nc", "x\ny")
	f.Add([]byte("x\x00y"), "x", "z")
	// One guard for all inputs: the document lives in memory, so nothing
	// is ever written under the directory.
	g, err := guard.New([]string{f.TempDir()}, guard.ModeProject)
	if err != nil {
		f.Fatal(err)
	}
	p, err := g.Resolve("f")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content []byte, old, new string) {
		ws := &oneDocWorkspace{content: bytes.Clone(content)}
		tc := &ToolContext{Guard: g, Workspace: ws}
		ctx := filestate.NewContext(t.Context(), filestate.New())
		res, err := tc.editFile(ctx, editFileInput{Path: "f", OldString: old, NewString: new})
		if err != nil {
			t.Fatalf("run error: %v", err)
		}
		after := ws.get()
		if ws.inconsistent {
			t.Fatalf("edit of %q (old %q, new %q): the Change's edits do not produce its content", content, old, new)
		}
		if res.IsError {
			if !bytes.Equal(after, content) {
				t.Fatalf("error result but the file changed: %q → %q (%s)", content, after, res.Output)
			}
			return
		}
		if p.Abs != res.Edits[0].Path {
			t.Fatalf("EditInfo path %q", res.Edits[0].Path)
		}
		if !replacedOnce(content, after, old, new) {
			t.Fatalf("edit of %q (old %q, new %q) gave %q", content, old, new, after)
		}
	})
}

// replacedOnce reports whether after is content with the single
// occurrence of some line-ending variant of old replaced by new in the
// matching variant.
func replacedOnce(content, after []byte, old, new string) bool {
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	crlf := func(s string) string { return strings.ReplaceAll(lf(s), "\n", "\r\n") }
	if old == "" {
		return len(content) == 0 && (string(after) == new || string(after) == crlf(new))
	}
	for _, v := range [][2]string{{old, new}, {crlf(old), crlf(new)}, {old, crlf(new)}, {lf(old), lf(new)}} {
		o, n := v[0], v[1]
		i := bytes.Index(content, []byte(o))
		if i < 0 || bytes.Contains(content[i+1:], []byte(o)) {
			continue // absent, or not unique (overlaps count)
		}
		want := append(append(bytes.Clone(content[:i]), n...), content[i+len(o):]...)
		if bytes.Equal(after, want) {
			return true
		}
	}
	return false
}

// oneDocWorkspace holds a single in-memory document, so the fuzzer runs
// the tool without disk I/O.
type oneDocWorkspace struct {
	mu           sync.Mutex
	content      []byte
	inconsistent bool // a Change's Edits did not produce its After
}

func (w *oneDocWorkspace) get() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.content
}

func (w *oneDocWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Document{Content: w.content, Stamp: filestate.Stamp{Size: int64(len(w.content)), Version: 1}, Open: true}, nil
}

func (w *oneDocWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !bytes.Equal(w.content, c.Base.Content) {
		return Document{}, ErrRejected
	}
	if got, err := diff.Apply(c.Base.Content, c.Edits); err != nil || !bytes.Equal(got, c.After) {
		w.inconsistent = true // an editor would apply Edits, the disk After
		return Document{}, ErrRejected
	}
	w.content = c.After
	return Document{Content: c.After, Stamp: filestate.Stamp{Version: 2}, Open: true}, nil
}
