package tools

import (
	"strings"
	"testing"
)

const pySrc = "def f(x):\n    if x:\n        a = 1\n        b = 2\n    return x\n"

// TestIndentNote: an edit that moves a Python or YAML block by a column
// or two, its text unchanged, says so in the result, through each tool
// whose text the model types; other shifts, other files and plain edits
// say nothing.
func TestIndentNote(t *testing.T) {
	const pyNote = "Indentation: in m.py, lines 3–4 moved 1 column left (8 → 7), with the text unchanged. In Python indentation is structure"
	tests := []struct {
		name  string
		file  string
		src   string
		tool  string
		args  argMap
		note  string // "" for none
		after string // the file afterwards, "" to skip
	}{
		{name: "edit_file: Python block one column left", file: "m.py", src: pySrc, tool: "edit_file",
			args: argMap{"old_string": "    if x:\n        a = 1\n        b = 2\n", "new_string": "    if x:\n       a = 1\n       b = 2\n"},
			note: pyNote, after: "def f(x):\n    if x:\n       a = 1\n       b = 2\n    return x\n"},
		{name: "edit_file: one line two columns right", file: "m.py", src: pySrc, tool: "edit_file",
			args: argMap{"old_string": "        b = 2\n", "new_string": "          b = 2\n"},
			note: "Indentation: in m.py, line 4 moved 2 columns right (8 → 10)"},
		{name: "multi_edit: Python", file: "m.py", src: pySrc, tool: "multi_edit",
			args: argMap{"edits": []argMap{{"old_string": "a = 1", "new_string": "a = 10"}, {"old_string": "        b = 2\n", "new_string": "       b = 2\n"}}},
			note: "Indentation: in m.py, line 4 moved 1 column left (8 → 7)"},
		{name: "apply_patch: Python, unified diff", file: "m.py", src: pySrc, tool: "apply_patch",
			args: argMap{"patch": "--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@\n     if x:\n-        a = 1\n-        b = 2\n+       a = 1\n+       b = 2\n"},
			note: pyNote},
		{name: "apply_patch: Python, Begin Patch", file: "m.py", src: pySrc, tool: "apply_patch",
			args: argMap{"patch": "*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n     if x:\n-        a = 1\n-        b = 2\n+       a = 1\n+       b = 2\n*** End Patch"},
			note: pyNote},
		{name: "write_file: YAML list two columns right", file: "c.yaml", src: "steps:\n  - run: a\n  - run: b\nenv:\n  X: 1\n", tool: "write_file",
			args: argMap{"content": "steps:\n  - run: a\n    - run: b\nenv:\n  X: 1\n"},
			note: "Indentation: in c.yaml, line 3 moved 2 columns right (2 → 4), with the text unchanged. In YAML indentation is structure"},
		{name: "a whole level (4 columns) is not flagged", file: "m.py", src: pySrc, tool: "edit_file",
			args: argMap{"old_string": "        a = 1\n        b = 2\n", "new_string": "    a = 1\n    b = 2\n"}},
		{name: "a text change keeping indentation is not flagged", file: "m.py", src: pySrc, tool: "edit_file",
			args: argMap{"old_string": "a = 1", "new_string": "a = 2"}},
		{name: "Go is not flagged", file: "m.go", src: "package m\n\nfunc f() {\n\tx()\n}\n", tool: "edit_file",
			args: argMap{"old_string": "\tx()\n", "new_string": "  x()\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{tt.file: tt.src})
			e.call("read_file", argMap{"path": tt.file})
			args := argMap{}
			for k, v := range tt.args {
				args[k] = v
			}
			if tt.tool != "apply_patch" {
				args["path"] = tt.file
			}
			res := e.call(tt.tool, args)
			if res.IsError {
				t.Fatalf("%s failed:\n%s", tt.tool, res.Output)
			}
			if tt.note == "" {
				if strings.Contains(res.Output, "Indentation:") {
					t.Errorf("a note where none is due:\n%s", res.Output)
				}
			} else if !strings.Contains(res.Output, tt.note) {
				t.Errorf("result lacks %q:\n%s", tt.note, res.Output)
			}
			if tt.after != "" {
				if got := e.read(tt.file); got != tt.after {
					t.Errorf("file = %q, want %q", got, tt.after)
				}
			}
		})
	}
}
