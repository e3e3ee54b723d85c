package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/google/go-cmp/cmp"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		read   bool
		path   string
		body   string
		isErr  bool
		want   string // content of path afterwards
		output []string
	}{
		{name: "create with parents", path: "a/b/c.txt", body: "hi\n", want: "hi\n",
			output: []string{"Created a/b/c.txt (+1 -0)"}},
		{name: "create empty", path: "empty", body: "", want: ""},
		{name: "overwrite read file", files: map[string]string{"f": "a\nb\nc\n"}, read: true, path: "f", body: "a\nB\nc\n", want: "a\nB\nc\n",
			output: []string{"Edited f (+1 -1): line 2\n1\ta\n3\tc"}},
		{name: "overwrite unread refused", files: map[string]string{"f": "a\n"}, path: "f", body: "b\n", want: "a\n", isErr: true,
			output: []string{"f already exists and was not read in this run; read it (read_file) before you overwrite it"}},
		{name: "same content", files: map[string]string{"f": "a\n"}, read: true, path: "f", body: "a\n", want: "a\n",
			output: []string{"No changes: f already has this content."}},
		{name: "directory refused", files: map[string]string{"d/x": "x"}, path: "d", body: "x", isErr: true,
			output: []string{"d is a directory"}},
		{name: "binary refused", files: map[string]string{"f.bin": "\x00\x01"}, path: "f.bin", body: "x", isErr: true, want: "\x00\x01",
			output: []string{"binary"}},
		{name: "outside refused", path: "../escape", body: "x", isErr: true, output: []string{"Access denied"}},
		{name: "CRLF file stays CRLF", files: map[string]string{"f": "a\r\nb\r\n"}, read: true, path: "f", body: "a\nB\n", want: "a\r\nB\r\n",
			output: []string{"(+1 -1)"}},
		{name: "BOM kept", files: map[string]string{"f": "\ufeffa\n"}, read: true, path: "f", body: "b\n", want: "\ufeffb\n"},
		{name: "content with its own CRLF kept as given", files: map[string]string{"f": "a\r\n"}, read: true, path: "f", body: "x\r\ny\n", want: "x\r\ny\n"},
		{name: "parent is a file", files: map[string]string{"f": "x"}, path: "f/g", body: "x", isErr: true,
			output: []string{`f/g`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFileEnv(t, tt.files)
			if tt.read {
				e.call("read_file", argMap{"path": tt.path})
			}
			res := e.call("write_file", argMap{"path": tt.path, "content": tt.body})
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v:\n%s", res.IsError, tt.isErr, res.Output)
			}
			for _, s := range tt.output {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			if tt.want != "" || !tt.isErr {
				if got := e.read(tt.path); got != tt.want {
					t.Errorf("content = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestWriteFileSendsLineDiff: overwriting a file sends the editor only
// the lines that change, not a whole-file replacement.
func TestWriteFileSendsLineDiff(t *testing.T) {
	var before, after strings.Builder
	for i := range 1000 {
		line := strings.Repeat("x", i%50) + "\n"
		before.WriteString(line)
		if i == 10 {
			line = "changed 10\n"
		}
		if i == 900 {
			after.WriteString("inserted\n")
		}
		after.WriteString(line)
	}
	e := newFileEnv(t, map[string]string{"f": before.String()})
	w := e.useFake()
	e.call("read_file", argMap{"path": "f"})
	res := e.call("write_file", argMap{"path": "f", "content": after.String()})
	if res.IsError {
		t.Fatal(res.Output)
	}
	c := w.last(t)
	if len(c.Edits) != 2 {
		t.Fatalf("want 2 edits, got %d: %+v", len(c.Edits), c.Edits)
	}
	got, err := diff.Apply(c.Base.Content, c.Edits)
	if err != nil || string(got) != after.String() {
		t.Fatalf("edits do not produce the content: %v", err)
	}
	if c.Edits[0].NewText != "changed 10\n" || c.Edits[1].NewText != "inserted\n" || c.Edits[1].Start != c.Edits[1].End {
		t.Errorf("edits = %+v", c.Edits)
	}
	if res.Edits[0].Added != 2 || res.Edits[0].Removed != 1 {
		t.Errorf("stats +%d -%d, want +2 -1", res.Edits[0].Added, res.Edits[0].Removed)
	}
	if e.read("f") != after.String() {
		t.Error("disk content differs")
	}
}

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	e := newFileEnv(t, map[string]string{"x.sh": "old\n"})
	if err := os.Chmod(e.abs("x.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.call("read_file", argMap{"path": "x.sh"})
	if res := e.call("write_file", argMap{"path": "x.sh", "content": "new\n"}); res.IsError {
		t.Fatal(res.Output)
	}
	fi, err := os.Stat(e.abs("x.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("mode = %v", fi.Mode().Perm())
	}
	names := dirNames(t, e.dir)
	if diff := cmp.Diff([]string{"x.sh"}, names); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestWriteFileRefusesAfterOutsideChange: the model read the file, the
// user changed it, and write_file would replace the user's change with
// content based on the old state.
func TestWriteFileRefusesAfterOutsideChange(t *testing.T) {
	e := newFileEnv(t, map[string]string{"f": "v1\n"})
	e.call("read_file", argMap{"path": "f"})
	writeTestFile(t, e.abs("f"), "v1 and the user's line\n")
	res := e.call("write_file", argMap{"path": "f", "content": "v2\n"})
	if !res.IsError || !strings.Contains(res.Output, "changed since you last read it") {
		t.Fatalf("result = %+v", res)
	}
	if got := e.read("f"); got != "v1 and the user's line\n" {
		t.Errorf("content = %q", got)
	}
	// After reading again the write goes through; so does a second write
	// after the model's own.
	e.call("read_file", argMap{"path": "f"})
	for _, body := range []string{"v2\n", "v3\n"} {
		if res := e.call("write_file", argMap{"path": "f", "content": body}); res.IsError {
			t.Fatalf("write %q: %s", body, res.Output)
		}
	}
	if got := e.read("f"); got != "v3\n" {
		t.Errorf("content = %q", got)
	}
}
