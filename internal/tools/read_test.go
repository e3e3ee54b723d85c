package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		args   argMap
		isErr  bool
		want   string   // whole output, if set
		output []string // substrings of the output
		absent []string // must not appear
	}{
		{name: "numbers lines", files: map[string]string{"f": "a\n\tb\nc"}, args: argMap{"path": "f"},
			want: "1\ta\n2\t\tb\n3\tc"},
		{name: "offset and limit", files: map[string]string{"f": numbered(1, 10)}, args: argMap{"path": "f", "offset": 3, "limit": 2},
			want: "3\tline 3\n4\tline 4\n\n(showing lines 3–4 of 10; use offset=5 to read on)"},
		{name: "limit to the end has no hint", files: map[string]string{"f": numbered(1, 10)}, args: argMap{"path": "f", "offset": 9},
			want: "9\tline 9\n10\tline 10"},
		{name: "default cap", files: map[string]string{"f": numbered(1, 2500)}, args: argMap{"path": "f"},
			output: []string{"2000\tline 2000\n", "(showing lines 1–2000 of 2500; use offset=2001 to read on)"}, absent: []string{"line 2001"}},
		{name: "long line cut", files: map[string]string{"f": "short\n" + strings.Repeat("é", 3000) + "\nafter\n"}, args: argMap{"path": "f"},
			output: []string{"… [line cut: 3000 characters in all]", "3\tafter", "some lines were cut at 2000 characters"}},
		{name: "output size cap", files: map[string]string{"f": strings.Repeat(strings.Repeat("x", 999)+"\n", 1000)}, args: argMap{"path": "f"},
			output: []string{"40\t", "(showing lines 1–40 of 1000, the first 40 KB; use offset=41 to read on, with limit for more lines at a time)"}, absent: []string{"41\t"}},
		{name: "output size cap with a limit", files: map[string]string{"f": strings.Repeat(strings.Repeat("x", 999)+"\n", 1000)}, args: argMap{"path": "f", "limit": 1000},
			output: []string{"(showing lines 1–261 of 1000, 256 KB; use offset=262 to read on)"}},
		{name: "empty file", files: map[string]string{"f": ""}, args: argMap{"path": "f"}, want: "f is empty (0 lines)."},
		{name: "directory", files: map[string]string{"d/x": "x"}, args: argMap{"path": "d"}, isErr: true,
			want: "Error: d is a directory, not a file; use list_dir to see what it holds"},
		{name: "binary", files: map[string]string{"b.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}, args: argMap{"path": "b.png"}, isErr: true,
			want: "Error: b.png is a binary file (16 bytes); read_file shows text files only"},
		{name: "offset past the end", files: map[string]string{"f": numbered(1, 10)}, args: argMap{"path": "f", "offset": 11}, isErr: true,
			want: "Error: offset 11 is past the end of f, which has 10 lines"},
		{name: "negative offset", files: map[string]string{"f": "a"}, args: argMap{"path": "f", "offset": -1}, isErr: true,
			output: []string{"offset and limit must be positive"}},
		{name: "CRLF shown as lines", files: map[string]string{"f": "a\r\nb\r\n"}, args: argMap{"path": "f"},
			want: "1\ta\n2\tb"},
		{name: "BOM not shown", files: map[string]string{"f": "\ufeffa\nb\n"}, args: argMap{"path": "f"},
			want: "1\ta\n2\tb"},
		{name: "missing", files: nil, args: argMap{"path": "nope.go"}, isErr: true, want: "Error: file not found: nope.go"},
		{name: "outside", files: nil, args: argMap{"path": "../x"}, isErr: true, output: []string{"Access denied", `"../x"`}},
		{name: "latin-1 text is text", files: map[string]string{"f": "caf\xe9 cr\xe8me br\xfbl\xe9e\n"}, args: argMap{"path": "f"},
			output: []string{"1\tcaf"}},
		{name: "missing path argument", files: nil, args: argMap{}, isErr: true, output: []string{"invalid arguments for read_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFileEnv(t, tt.files)
			res := e.call("read_file", tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v:\n%s", res.IsError, tt.isErr, res.Output)
			}
			if tt.want != "" && res.Output != tt.want {
				t.Errorf("output:\n%q\nwant:\n%q", res.Output, tt.want)
			}
			for _, s := range tt.output {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%.2000s", s, res.Output)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q", s)
				}
			}
		})
	}
}

// TestReadFileDedup walks the re-read rule: the same range of unchanged
// content is answered briefly; anything else shows the content again.
func TestReadFileDedup(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": numbered(1, 10)})
	read := func(a argMap) string { return e.call("read_file", a).Output }
	first := read(argMap{"path": "f"})
	if first == unchangedMessage {
		t.Fatal("first read deduplicated")
	}
	if got := read(argMap{"path": "f"}); got != unchangedMessage {
		t.Errorf("unchanged re-read: %q", got)
	}
	if got := read(argMap{"path": "f", "offset": 1, "limit": 2000}); got != unchangedMessage {
		t.Errorf("the explicit defaults are the same range: %q", got)
	}
	if got := read(argMap{"path": "f", "offset": 2}); got == unchangedMessage {
		t.Error("another offset was deduplicated")
	}
	if got := read(argMap{"path": "f", "offset": 2}); got != unchangedMessage {
		t.Errorf("re-read at offset 2: %q", got)
	}
	// After the model's own edit the content comes back.
	e.call("edit_file", argMap{"path": "f", "old_string": "line 3\n", "new_string": "LINE 3\n"})
	if got := read(argMap{"path": "f", "offset": 2}); !strings.Contains(got, "LINE 3") {
		t.Errorf("read after write: %q", got)
	}
	// Same size, same mtime, different bytes: still a change.
	fi, err := os.Stat(e.abs("f"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, e.abs("f"), strings.Replace(e.read("f"), "line 5", "line X", 1))
	if err := os.Chtimes(e.abs("f"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := read(argMap{"path": "f", "offset": 2}); !strings.Contains(got, "line X") {
		t.Errorf("read after a same-stamp change: %q", got)
	}
	// Touching the file (new mtime, same bytes) shows the content again:
	// the stamp is part of the rule.
	later := fi.ModTime().Add(time.Minute)
	if err := os.Chtimes(e.abs("f"), later, later); err != nil {
		t.Fatal(err)
	}
	if got := read(argMap{"path": "f", "offset": 2}); got == unchangedMessage {
		t.Error("a new mtime was deduplicated")
	}
}

// TestReadFileEditorBuffer: an editor buffer (Open, Version ≥ 0) that
// the user has in front of them counts as read for edits, but is not
// deduplicated until the model has read it, and a new version shows.
func TestReadFileEditorBuffer(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": "disk\n"})
	buf := &bufferWorkspace{Workspace: DiskWorkspace{}, content: "buffer v1\n", version: 1}
	e.tc.Workspace = buf
	e.states.SetSeenFunc(func(p string) bool { return p == e.abs("f") })

	if got := e.call("read_file", argMap{"path": "f"}).Output; got != "1\tbuffer v1" {
		t.Errorf("first read of a seen buffer: %q", got)
	}
	if got := e.call("read_file", argMap{"path": "f"}).Output; got != unchangedMessage {
		t.Errorf("re-read: %q", got)
	}
	buf.set("buffer v2\n", 2)
	if got := e.call("read_file", argMap{"path": "f"}).Output; got != "1\tbuffer v2" {
		t.Errorf("read of a new version: %q", got)
	}

	e2 := newFileEnv(t, map[string]string{"g": "x\n"})
	e2.states.SetSeenFunc(func(p string) bool { return p == e2.abs("g") })
	res := e2.call("edit_file", argMap{"path": "g", "old_string": "x", "new_string": "y"})
	if res.IsError || strings.Contains(res.Output, "Warning") {
		t.Errorf("edit of a buffer the user sees: %+v", res)
	}
}

// bufferWorkspace serves one in-memory buffer for every path, like an
// editor with the file open.
type bufferWorkspace struct {
	Workspace
	content string
	version int64
}

func (w *bufferWorkspace) set(content string, version int64) { w.content, w.version = content, version }

func (w *bufferWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	return Document{Content: []byte(w.content), Stamp: filestate.Stamp{Version: w.version}, Open: true}, nil
}

func TestFileNotFoundSuggestions(t *testing.T) {
	e := newFileEnv(t, map[string]string{"main.go": "package main\n", "src/util.go": "x", "src/other.txt": "y"})
	for in, want := range map[string]string{
		"Main.go":      "Error: file not found: Main.go (did you mean main.go?)",
		"mian.go":      "Error: file not found: mian.go (did you mean main.go?)",
		"main.ts":      "Error: file not found: main.ts (did you mean main.go?)",
		"src/utils.go": "Error: file not found: src/utils.go (did you mean src/util.go?)",
		"zzz.go":       "Error: file not found: zzz.go",
		"nodir/x.go":   "Error: file not found: nodir/x.go",
	} {
		if got := e.call("read_file", argMap{"path": in}).Output; got != want {
			t.Errorf("read_file(%s) = %q, want %q", in, got, want)
		}
	}
	if got := e.call("edit_file", argMap{"path": "mian.go", "old_string": "a", "new_string": "b"}).Output; !strings.Contains(got, "did you mean main.go?") {
		t.Errorf("edit_file: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"abc", "abd", 1}, {"main", "mian", 2}, {"a", "abcdef", 3}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tt.a, tt.b, 3); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
