package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEditFile(t *testing.T) {
	const goSrc = "package a\n\nfunc f() int {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		file    string // content of f; "" with missing=true means no file
		missing bool
		read    bool // read the file first
		old     string
		new     string
		want    string // file content afterwards
		isErr   bool
		output  []string // substrings of the result
	}{
		{name: "replace once", file: goSrc, read: true, old: "return 1", new: "return 2",
			want: "package a\n\nfunc f() int {\n\treturn 2\n}\n", output: []string{"Edited f (+1 -1): line 4\n3\tfunc f() int {\n5\t}"}},
		{name: "not found", file: goSrc, read: true, old: "return 7", new: "x", want: goSrc, isErr: true,
			output: []string{"Error: old_string not found in file"}},
		{name: "ambiguous", file: "x := 1\nx := 1\nx := 1\n", read: true, old: "x := 1", new: "y", want: "x := 1\nx := 1\nx := 1\n", isErr: true,
			output: []string{"Error: old_string matches 3 times — must be unique. Provide more context.", "lines 1, 2, 3"}},
		{name: "overlapping matches are ambiguous", file: "aaa", read: true, old: "aa", new: "b", want: "aaa", isErr: true,
			output: []string{"matches 2 times"}},
		{name: "unread file applies with a warning", file: goSrc, old: "return 1", new: "return 2",
			want: "package a\n\nfunc f() int {\n\treturn 2\n}\n", output: []string{"Warning (edit_file): this file was not read", "before this edit", "Edited f"}},
		{name: "identical strings refused", file: goSrc, read: true, old: "return 1", new: "return 1", want: goSrc, isErr: true,
			output: []string{"identical"}},
		{name: "empty old_string on existing file refused", file: goSrc, read: true, old: "", new: "x", want: goSrc, isErr: true,
			output: []string{"old_string is empty"}},
		{name: "empty old_string fills an empty file", file: "", read: true, old: "", new: "hello\n", want: "hello\n"},
		{name: "empty old_string creates a missing file", missing: true, old: "", new: "new\n", want: "new\n",
			output: []string{"Created f (+1 -0)"}},
		{name: "missing file", missing: true, old: "a", new: "b", isErr: true, output: []string{"file not found: f"}},
		{name: "binary refused", file: "ab\x00cd", read: false, old: "ab", new: "x", want: "ab\x00cd", isErr: true,
			output: []string{"binary"}},
		{name: "replacement is literal", file: "a = b\n", read: true, old: "b", new: "$1 $& ${x} \\1",
			want: "a = $1 $& ${x} \\1\n"},
		{name: "CRLF kept with LF strings", file: "one\r\ntwo\r\nthree\r\n", read: true, old: "one\ntwo\n", new: "uno\ndos\nextra\n",
			want: "uno\r\ndos\r\nextra\r\nthree\r\n", output: []string{"Edited f (+3 -2): lines 1–3\n4\tthree"}},
		{name: "CRLF kept single line", file: "one\r\ntwo\r\n", read: true, old: "two", new: "2a\n2b",
			want: "one\r\n2a\r\n2b\r\n"},
		{name: "LF file with CRLF strings", file: "one\ntwo\n", read: true, old: "one\r\ntwo", new: "1\r\n2",
			want: "1\n2\n"},
		{name: "BOM kept", file: "\ufeffname=a\nx=1\n", read: true, old: "name=a", new: "name=b", want: "\ufeffname=b\nx=1\n"},
		{name: "tabs kept", file: "\tif x {\n\t\ty()\n\t}\n", read: true, old: "y()", new: "z()", want: "\tif x {\n\t\tz()\n\t}\n"},
		{name: "no final newline kept", file: "a\nb", read: true, old: "a", new: "c", want: "c\nb"},
		{name: "delete", file: "a\nb\nc\n", read: true, old: "b\n", new: "", want: "a\nc\n", output: []string{"(+0 -1)"}},
		{name: "mixed endings: exact match wins", file: "a\r\nb\nc\r\n", read: true, old: "b\nc", new: "B\nC",
			want: "a\r\nB\r\nC\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if !tt.missing {
				files["f"] = tt.file
			}
			e := newFileEnv(t, files)
			if tt.read {
				e.call("read_file", argMap{"path": "f"})
			}
			res := e.call("edit_file", argMap{"path": "f", "old_string": tt.old, "new_string": tt.new})
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v; output:\n%s", res.IsError, tt.isErr, res.Output)
			}
			for _, s := range tt.output {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			if tt.missing && tt.isErr {
				if _, err := os.Stat(e.abs("f")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("file was created: %v", err)
				}
				return
			}
			if got := e.read("f"); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if tt.isErr && len(res.Edits) > 0 {
				t.Errorf("failed edit carries EditInfo %+v", res.Edits)
			}
			if !tt.isErr {
				if len(res.Edits) == 0 || res.Edits[0].Path != e.abs("f") || res.Edits[0].Rel != "f" || res.Edits[0].Diff == "" {
					t.Errorf("EditInfo = %+v", res.Edits)
				}
				if !e.states.WasRead(e.abs("f")) {
					t.Error("write not recorded in FileStates")
				}
			}
		})
	}
}

// TestEditFileNotFoundHints checks that a failed match tells the model
// where the closest text is and what differs, and changes nothing.
func TestEditFileNotFoundHints(t *testing.T) {
	const src = "package a\n\nfunc greet() {\n\tfmt.Println(\"Hello\")\n\treturn\n}\n"
	tests := []struct {
		name string
		old  string
		want []string
	}{
		{"indentation", "func greet() {\n    fmt.Println(\"Hello\")\n", []string{"lines 3–4", "indentation (the file indents with tabs)", "4\t\tfmt.Println"}},
		{"quotes", "fmt.Println(“Hello”)", []string{"line 4", "quotes"}},
		{"case", "fmt.println(\"Hello\")", []string{"line 4", "letter case"}},
		{"single for double quotes", "fmt.Println('Hello')", []string{"line 4", "quotes"}},
		{"trailing whitespace", "func greet() {  \n\tfmt.Println(\"Hello\")", []string{"lines 3–4", "trailing whitespace"}},
		{"changed line", "func greet() {\n\tfmt.Println(\"Bye\")\n\treturn\n}", []string{"lines 3–6", "line 4 differs", `"\tfmt.Println(\"Hello\")"`}},
		{"line numbers copied", "4\tfmt.Println(\"Hello\")", []string{"line numbers that read_file shows"}},
		{"nothing similar", "zzz qqq", []string{"No similar text was found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"a.go": src})
			e.call("read_file", argMap{"path": "a.go"})
			res := e.call("edit_file", argMap{"path": "a.go", "old_string": tt.old, "new_string": "X"})
			if !res.IsError || !strings.HasPrefix(res.Output, "Error: old_string not found in file\n") {
				t.Fatalf("want the not-found error, got:\n%s", res.Output)
			}
			for _, s := range tt.want {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			if got := e.read("a.go"); got != src {
				t.Errorf("file changed: %q", got)
			}
		})
	}
}

func TestEditFileKeepsMode(t *testing.T) {
	e := newFileEnv(t, map[string]string{"run.sh": "#!/bin/sh\necho hi\n"})
	if err := os.Chmod(e.abs("run.sh"), 0o751); err != nil {
		t.Fatal(err)
	}
	e.call("read_file", argMap{"path": "run.sh"})
	if res := e.call("edit_file", argMap{"path": "run.sh", "old_string": "hi", "new_string": "ho"}); res.IsError {
		t.Fatal(res.Output)
	}
	fi, err := os.Stat(e.abs("run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(e.dir)
	if len(entries) != 1 {
		t.Errorf("leftover files: %v", entries)
	}
}

// TestEditFileSendsExactRange checks the Change a Workspace receives:
// exactly the replaced bytes, so an editor applies the smallest edit.
func TestEditFileSendsExactRange(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": "alpha beta gamma\n"})
	w := e.useFake()
	e.call("read_file", argMap{"path": "f"})
	if res := e.call("edit_file", argMap{"path": "f", "old_string": "beta", "new_string": "BETA"}); res.IsError {
		t.Fatal(res.Output)
	}
	c := w.last(t)
	if diff := cmp.Diff([]TextEdit{{Start: 6, End: 10, NewText: "BETA"}}, c.Edits); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	if string(c.After) != "alpha BETA gamma\n" || string(c.Base.Content) != "alpha beta gamma\n" || c.Create {
		t.Errorf("change = %+v", c)
	}
}

// TestEditRejected: a Workspace that refuses (the user said no, or the
// buffer moved on) gives an error result, no RecordWrite, EditFailed.
func TestEditRejected(t *testing.T) {
	for _, tool := range []string{"edit_file", "write_file", "multi_edit"} {
		t.Run(tool, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"f": "one\n"})
			w := e.useFake()
			w.reject = fmt.Errorf("applyEdit: %w: the user rejected it", ErrRejected)
			var a argMap
			switch tool {
			case "edit_file":
				a = argMap{"path": "f", "old_string": "one", "new_string": "two"}
			case "write_file":
				a = argMap{"path": "f", "content": "two\n"}
				e.call("read_file", argMap{"path": "f"}) // write_file overwrites only what was read
			case "multi_edit":
				a = argMap{"path": "f", "edits": []argMap{{"old_string": "one", "new_string": "two"}}}
			}
			res := e.call(tool, a)
			if !res.IsError || res.Output != "Error: edit not applied: the user rejected it" {
				t.Errorf("result = %+v", res)
			}
			if len(res.Edits) > 0 {
				t.Errorf("rejected edit carries EditInfo")
			}
			if tool != "write_file" && e.states.WasRead(e.abs("f")) { // write_file's file was read first
				t.Error("rejected edit was recorded as a write")
			}
			if diff := cmp.Diff([]EditPhase{EditStarted, EditFailed}, e.phases()); diff != "" {
				t.Errorf("phases (-want +got):\n%s", diff)
			}
			if e.events[1].Message != "edit not applied: the user rejected it" {
				t.Errorf("EditFailed message = %q", e.events[1].Message)
			}
			if got := e.read("f"); got != "one\n" {
				t.Errorf("file = %q", got)
			}
		})
	}
}

// TestEditFileChangedOnDisk: the file changes between the tool's read
// and the write; DiskWorkspace refuses instead of overwriting.
func TestEditFileChangedOnDisk(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": "one\ntwo\n"})
	w := &racingWorkspace{Workspace: DiskWorkspace{}, before: func() {
		writeTestFile(t, e.abs("f"), "one\ntwo\nthree by the user\n")
	}}
	e.tc.Workspace = w
	res := e.call("edit_file", argMap{"path": "f", "old_string": "two", "new_string": "2"})
	if !res.IsError || !strings.Contains(res.Output, "edit not applied: f changed on disk since it was read") {
		t.Fatalf("result = %+v", res)
	}
	if got := e.read("f"); got != "one\ntwo\nthree by the user\n" {
		t.Errorf("the user's change was lost: %q", got)
	}
}

// racingWorkspace runs before just ahead of each Apply.
type racingWorkspace struct {
	Workspace
	before func()
}

func (w *racingWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	w.before()
	return w.Workspace.Apply(ctx, c)
}

func TestEditEvents(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": "a\nb\n"})
	e.call("read_file", argMap{"path": "f"})
	e.call("edit_file", argMap{"path": "f", "old_string": "b\n", "new_string": "B\nC\n"})
	want := []EditEvent{
		{Tool: "edit_file", Path: e.abs("f"), Rel: "f", Phase: EditStarted, Added: 2, Removed: 1},
		{Tool: "edit_file", Path: e.abs("f"), Rel: "f", Phase: EditDone, Added: 2, Removed: 1},
	}
	if diff := cmp.Diff(want, e.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestNotAppliedMessage(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: the user said no", ErrRejected), "edit not applied: the user said no"},
		{fmt.Errorf("applyEdit: %w: buffer is newer", ErrRejected), "edit not applied: buffer is newer"},
		{ErrRejected, "edit not applied: the editor or the user refused it"},
		{errors.New("write f: no space left on device"), "edit not applied: write f: no space left on device"},
	}
	for _, tt := range tests {
		if got := notAppliedMessage(tt.err); got != tt.want {
			t.Errorf("notAppliedMessage(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestLooseKey(t *testing.T) {
	for in, want := range map[string]string{
		"  Foo 'Bar' “Baz”\t": `foo"bar""baz"`,
		"ÉTÉ `x`\r":           `été"x"`,
		"\t \n":               "",
	} {
		if got := looseKey(in); got != want {
			t.Errorf("looseKey(%q) = %q, want %q", in, got, want)
		}
	}
}
