package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// codexSrc repeats its bodies, so that only the @@ lines or *** End of
// File can tell the places apart.
const codexSrc = `class A:
    def run(self):
        return 1

class B:
    def run(self):
        return 1

    def stop(self):
        return 1
`

// TestApplyPatchCodexPlacement: each way Codex's grammar places a hunk
// without line numbers: @@ lines (one, or several narrowing down), the
// first match after them; *** End of File; added lines only; and the
// padding and heredoc models wrap a patch in.
func TestApplyPatchCodexPlacement(t *testing.T) {
	for _, tc := range []struct {
		name, patch, want, errWant string
	}{
		{
			name:  "@@ line picks the class",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch",
			want:  strings.Replace(codexSrc, "B:\n    def run(self):\n        return 1", "B:\n    def run(self):\n        return 2", 1),
		},
		{
			name:  "@@ lines narrow down: class, then method",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n@@     def stop(self):\n-        return 1\n+        return 3\n*** End Patch",
			want:  strings.Replace(codexSrc, "stop(self):\n        return 1", "stop(self):\n        return 3", 1),
		},
		{
			name:  "@@ line repeated as the hunk's first context line",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n class B:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch",
			want:  strings.Replace(codexSrc, "B:\n    def run(self):\n        return 1", "B:\n    def run(self):\n        return 2", 1),
		},
		{
			name:  "*** End of File: the last lines, not the first match",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@\n-        return 1\n+        return 9\n*** End of File\n*** End Patch",
			want:  strings.TrimSuffix(codexSrc, "return 1\n") + "return 9\n",
		},
		{
			name:  "two hunks, in order, with a blank line between",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class A:\n-    def run(self):\n+    def go(self):\n\n@@ class B:\n-    def run(self):\n+    def go(self):\n*** End Patch",
			want:  strings.ReplaceAll(codexSrc, "def run", "def go"),
		},
		{
			name:  "added lines after an @@ line",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n+    x = 1\n*** End Patch",
			want:  strings.Replace(codexSrc, "class B:\n", "class B:\n    x = 1\n", 1),
		},
		{
			name:  "padded markers inside a heredoc",
			patch: "apply_patch <<'EOF'\n*** Begin Patch  \n*** Update File: m.py \n@@ class A:\n-        return 1\n+        return 0\n*** End Patch \nEOF\n",
			want:  strings.Replace(codexSrc, "return 1", "return 0", 1),
		},
		{
			name:  "typographic quotes and dashes in context match the file's ASCII",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class A:\n     def run(self):\n-        return 1\n+        return \u201cx\u201d\n*** End Patch",
			want:  strings.Replace(codexSrc, "return 1", "return \u201cx\u201d", 1),
		},
		{
			name:    "without @@ lines the match must be unique",
			patch:   "*** Begin Patch\n*** Update File: m.py\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch",
			errWant: "match 2 places (lines 2, 6)",
		},
		{
			name:    "@@ line not in the file",
			patch:   "*** Begin Patch\n*** Update File: m.py\n@@ class C:\n-        return 1\n+        return 2\n*** End Patch",
			errWant: `its @@ line "class C:" is not in the file`,
		},
		{
			name:    "*** End of File with lines that are not the end",
			patch:   "*** Begin Patch\n*** Update File: m.py\n@@\n-class A:\n+class Z:\n*** End of File\n*** End Patch",
			errWant: "it ends with *** End of File, but its context and removed lines are not the last 1 lines",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"m.py": codexSrc})
			e.call("read_file", argMap{"path": "m.py"})
			res := e.call("apply_patch", argMap{"patch": tc.patch})
			if tc.errWant != "" {
				if !res.IsError || !strings.Contains(res.Output, tc.errWant) || !strings.Contains(res.Output, "Nothing was applied.") {
					t.Errorf("result (error=%v), want an error with %q:\n%s", res.IsError, tc.errWant, res.Output)
				}
				if got := e.read("m.py"); got != codexSrc {
					t.Errorf("m.py changed: %q", got)
				}
				return
			}
			if res.IsError {
				t.Fatalf("apply_patch: %s", res.Output)
			}
			if got := e.read("m.py"); got != tc.want {
				t.Errorf("m.py:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestApplyPatchMove: *** Move to (and a unified diff naming two paths)
// renames a file, with its hunks applied, as one change: the result
// diffs the new file against the old, an undo brings the old one back,
// and a failure elsewhere in the patch leaves both files alone.
func TestApplyPatchMove(t *testing.T) {
	const src = "package a\n\nfunc F() int {\n\treturn 1\n}\n"
	for _, tc := range []struct{ name, patch string }{
		{"Begin Patch", "*** Begin Patch\n*** Update File: a.go\n*** Move to: b/b.go\n@@ func F() int {\n-\treturn 1\n+\treturn 2\n*** End Patch"},
		{"unified", "--- a/a.go\n+++ b/b/b.go\n@@ -3,3 +3,3 @@\n func F() int {\n-\treturn 1\n+\treturn 2\n }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"a.go": src})
			led := filestate.NewLedger()
			e.ctx = filestate.NewLedgerContext(e.ctx, led)
			e.call("read_file", argMap{"path": "a.go"})
			res := e.call("apply_patch", argMap{"patch": tc.patch})
			if res.IsError {
				t.Fatalf("apply_patch: %s", res.Output)
			}
			if _, err := os.Stat(e.abs("a.go")); !os.IsNotExist(err) {
				t.Errorf("a.go still there: %v", err)
			}
			if got := e.read("b/b.go"); got != strings.Replace(src, "return 1", "return 2", 1) {
				t.Errorf("b/b.go = %q", got)
			}
			for _, w := range []string{"Deleted a.go (moved to b/b.go)", "Moved a.go to b/b.go (+1 -1): line 4"} {
				if !strings.Contains(res.Output, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Output)
				}
			}
			if strings.Contains(res.Output, "-package a") || strings.Contains(res.Output, "+package a") {
				t.Errorf("the result repeats the whole file:\n%s", res.Output)
			}
			if _, err := e.tc.UndoRun(e.ctx, led.Files()); err != nil {
				t.Fatalf("undo: %v", err)
			}
			if got := e.read("a.go"); got != src {
				t.Errorf("after undo a.go = %q", got)
			}
			if _, err := os.Stat(e.abs("b/b.go")); !os.IsNotExist(err) {
				t.Errorf("after undo b/b.go still there: %v", err)
			}
		})
	}
	t.Run("all or nothing", func(t *testing.T) {
		e := newFileEnv(t, map[string]string{"a.go": src, "c.txt": "c\n"})
		res := e.call("apply_patch", argMap{"patch": "*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-\treturn 1\n+\treturn 2\n*** Update File: c.txt\n@@\n-missing\n+x\n*** End Patch"})
		if !res.IsError || !strings.Contains(res.Output, "Nothing was applied.") {
			t.Fatalf("accepted:\n%s", res.Output)
		}
		if got := e.read("a.go"); got != src {
			t.Errorf("a.go = %q", got)
		}
		if _, err := os.Stat(e.abs("b.go")); !os.IsNotExist(err) {
			t.Errorf("b.go created: %v", err)
		}
	})
}
