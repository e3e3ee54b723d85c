package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/lsp"
)

func TestToolsReadUnsavedBufferThenDisk(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\non disk\n")
	e := newEditor(t, dir)
	u := e.OpenText(filepath.Join(dir, "a.txt"), "unsaved text\n")
	if got := readProbe(t, e, "a.txt"); got != "unsaved text\n" {
		t.Errorf("open buffer: tools read %q, want the unsaved text", got)
	}
	e.Replace(u, "unsaved", "edited")
	if got := readProbe(t, e, "a.txt"); got != "edited text\n" {
		t.Errorf("after didChange: tools read %q", got)
	}
	e.CloseFile(u)
	if got := readProbe(t, e, "a.txt"); got != "on disk\n" {
		t.Errorf("after didClose: tools read %q, want the disk content", got)
	}
}

// TestIncrementalChangesUnicode types into buffers holding emoji (UTF-16
// surrogate pairs), CJK and CRLF line ends; after every change the server's
// overlay must equal the fake editor's buffer, which maps positions with its
// own independent code.
func TestIncrementalChangesUnicode(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	cases := []struct {
		name, text string
		edits      [][2]string // replace old with new, in order
	}{
		{"emoji", "a😀b😀c\nsecond 🎉 line\n", [][2]string{{"b", "B"}, {"😀c", "C"}, {"🎉", "🎊🎊"}, {"second", "2nd😀"}, {"a😀", ""}}},
		{"cjk", "日本語のテキスト\n中文 text\n", [][2]string{{"語", "語語"}, {"中文", "汉字"}, {"テキスト\n", "text\n"}}},
		{"crlf", "one\r\ntwo\r\nthree\r\n", [][2]string{{"two", "2"}, {"one\r\n", ""}, {"three", "three\r\nfour"}, {"2\r\n", "2 "}}},
		{"mixed", "x😀\r\n日本\r\n😀😀😀\r\n", [][2]string{{"😀😀😀", "é"}, {"日本\r\n", "日本語\r\nnew\r\n"}, {"x😀", "xy"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".txt")
			u := e.OpenText(path, tc.text)
			for i, ed := range tc.edits {
				e.Replace(u, ed[0], ed[1])
				if got, want := readProbe(t, e, path), e.Text(u); got != want {
					t.Fatalf("after edit %d (%q→%q): server has %q, editor has %q", i, ed[0], ed[1], got, want)
				}
			}
		})
	}
}

// TestPositionPastTheEndClamps: positions past the end clamp as
// vscode-languageserver's TextDocument does, instead of putting the
// buffer out of sync: a character past the end of a line is the line's
// end (before "\r\n"), a line past the last one is the end of the
// document — Neovim ends a whole-buffer change at (lineCount, 0), one
// line past the last of a text without a final newline.
func TestPositionPastTheEndClamps(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	pos := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	cases := []struct {
		name, text string
		start, end protocol.Position
		insert     string
		want       string
	}{
		{"character past a CRLF line's end", "ab\r\ncd", pos(0, 99), pos(0, 99), "?", "ab?\r\ncd"},
		{"character past the last line's end", "ab\r\ncd", pos(1, 99), pos(1, 99), "!", "ab\r\ncd!"},
		{"Neovim's (lineCount, 0) end, no final newline", "one\ntwo", pos(0, 0), pos(2, 0), "new\n", "new\n"},
		{"Neovim's (lineCount, 0) end, final newline", "one\ntwo\n", pos(1, 0), pos(2, 0), "2\n", "one\n2\n"},
		{"insert at (lineCount, 0)", "one\ntwo", pos(2, 0), pos(2, 0), "\nthree", "one\ntwo\nthree"},
		{"start and end far past the end", "one\n", pos(40, 3), pos(99, 99), "tail", "one\ntail"},
		{"end far past the end", "one\ntwo\n", pos(0, 3), pos(7, 0), "!", "one!"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("c%d.txt", i))
			u := e.OpenText(path, c.text)
			e.EditRange(u, c.start, c.end, c.insert)
			out, isErr := e.RunTool("test_read", map[string]string{"path": path})
			if isErr {
				t.Fatalf("read after the change: %s", out)
			}
			if out != c.want {
				t.Errorf("server has %q, want %q", out, c.want)
			}
			if got := e.Text(u); got != c.want {
				t.Errorf("the fake editor has %q, want %q (its own mapping clamps too)", got, c.want)
			}
		})
	}
}

func TestFullDocumentChange(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	path := filepath.Join(dir, "f.txt")
	u := e.OpenText(path, "old")
	e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "entirely new\n"}},
	})
	if got := readProbe(t, e, path); got != "entirely new\n" {
		t.Errorf("got %q", got)
	}
}

// TestEditorSeededFileStates: an open buffer counts as seen (no "not read"
// warning on edit), a re-read of an unchanged buffer is deduplicated only
// after the model read it, and a didChange after the read makes the next
// read return the fresh content.
func TestEditorSeededFileStates(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nvar X = 1\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.go"))

	out, isErr := e.RunTool("edit_file", map[string]string{"path": "a.go", "old_string": "X = 1", "new_string": "X = 2"})
	if isErr || strings.Contains(out, "not read") {
		t.Fatalf("edit of an open buffer: %s", out)
	}
	if got := e.Text(u); !strings.Contains(got, "X = 2") {
		t.Fatalf("buffer after edit_file: %q", got)
	}
	first, _ := e.RunTool("read_file", map[string]string{"path": "a.go"})
	if !strings.Contains(first, "X = 2") {
		t.Fatalf("read after edit: %s", first)
	}
	second, _ := e.RunTool("read_file", map[string]string{"path": "a.go"})
	if !strings.Contains(second, "unchanged") {
		t.Errorf("second read of an unchanged buffer was not deduplicated: %s", second)
	}
	e.Replace(u, "X = 2", "X = 3")
	third, _ := e.RunTool("read_file", map[string]string{"path": "a.go"})
	if !strings.Contains(third, "X = 3") {
		t.Errorf("read after didChange is not fresh: %s", third)
	}
	if disk, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(disk) != "package a\n\nvar X = 1\n" {
		t.Errorf("the disk changed behind the editor's back: %q", disk)
	}
}

// TestDesyncedBufferIsNotUsed: a didChange that cannot be applied (end
// before start) leaves the buffer out of step with the editor; reads and
// edits of it are refused until a full-text change heals it.
func TestDesyncedBufferIsNotUsed(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	path := filepath.Join(dir, "d.txt")
	u := e.OpenText(path, "line one\nline two\n")
	change := func(v int32, c protocol.TextDocumentContentChangeEvent) {
		e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{c},
		})
	}
	change(2, &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 0}}, Text: "x"})
	if out, isErr := e.RunTool("test_read", map[string]string{"path": path}); !isErr || !strings.Contains(out, "out of sync") {
		t.Errorf("read of a desynced buffer: %q (error=%v)", out, isErr)
	}
	if out, isErr := applyProbe(t, e, map[string]any{"path": "d.txt", "start": 0, "end": 1, "text": "L"}); !isErr {
		t.Errorf("edit of a desynced buffer: %q", out)
	}
	change(3, &protocol.TextDocumentContentChangeWholeDocument{Text: "healed\n"})
	if got := readProbe(t, e, path); got != "healed\n" {
		t.Errorf("after a full sync: %q", got)
	}
}

// TestOverlayChangedWakesWaiters: a channel taken from Changed is closed
// by the next change; changes nobody waits for leave the next waiter a
// fresh channel that the change after it closes.
func TestOverlayChangedWakesWaiters(t *testing.T) {
	o := lsp.NewOverlay()
	u := uri.File(filepath.Join(t.TempDir(), "a.go"))
	if _, err := o.Open(u, "go", 1, "a\n"); err != nil {
		t.Fatal(err)
	}
	change := func(v int32) {
		t.Helper()
		at := protocol.Position{Line: 0, Character: 0}
		if err := o.Change(u, v, []protocol.TextDocumentContentChangeEvent{
			&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at, End: at}, Text: "x"},
		}, protocol.PositionEncodingKindUTF16); err != nil {
			t.Fatal(err)
		}
	}
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	first, again := o.Changed(), o.Changed()
	if first != again || closed(first) {
		t.Fatal("two waiters before a change must share one open channel")
	}
	change(2)
	if !closed(first) {
		t.Fatal("the change did not close the waiter's channel")
	}
	change(3) // nobody waits
	next := o.Changed()
	if closed(next) {
		t.Fatal("a channel taken after the last change is already closed")
	}
	change(4)
	if !closed(next) {
		t.Fatal("the change did not close the later waiter's channel")
	}
}
