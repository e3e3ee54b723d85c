package tools

import (
	"os"
	"strings"
	"testing"
)

const patchCalc = "package calc\n\nfunc Add(a, b int) int {\n\ttotal := a + b\n\treturn total\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"

func TestApplyPatchThreeFiles(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": patchCalc, "old.txt": "gone\nsoon\n"})
	patch := `diff --git a/calc.go b/calc.go
--- a/calc.go
+++ b/calc.go
@@ -3,4 +3,4 @@
 func Add(a, b int) int {
-	total := a + b
-	return total
+	sum := a + b
+	return sum
 }
@@ -9,2 +9,3 @@ func Sub(a, b int) int {
 	return a - b
 }
+// end
--- /dev/null
+++ b/sub/new.txt
@@ -0,0 +1,2 @@
+fresh
+file
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-soon
`
	res := e.call("apply_patch", argMap{"patch": patch})
	if res.IsError {
		t.Fatalf("apply_patch: %s", res.Output)
	}
	want := strings.NewReplacer("total", "sum").Replace(patchCalc) + "// end\n"
	if got := e.read("calc.go"); got != want {
		t.Errorf("calc.go:\n%s\nwant:\n%s", got, want)
	}
	if got := e.read("sub/new.txt"); got != "fresh\nfile\n" {
		t.Errorf("sub/new.txt = %q", got)
	}
	if _, err := os.Stat(e.abs("old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt still there: %v", err)
	}
	for _, w := range []string{"Edited calc.go (+3 -2)", "Created sub/new.txt (+2 -0)", "Deleted old.txt (+0 -2)"} {
		if !strings.Contains(res.Output, w) {
			t.Errorf("answer lacks %q:\n%s", w, res.Output)
		}
	}
}

// TestApplyPatchAllOrNothing: one bad hunk in the last file, and no file
// changes; the error names the file and hunk and shows what differs.
func TestApplyPatchAllOrNothing(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": patchCalc, "b.txt": "one\ntwo\nthree\n"})
	patch := `--- a/calc.go
+++ b/calc.go
@@ -4,1 +4,1 @@
-	total := a + b
+	sum := a + b
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+new
--- a/b.txt
+++ b/b.txt
@@ -1,3 +1,3 @@
 one
-TWO
+2
 three
`
	res := e.call("apply_patch", argMap{"patch": patch})
	if !res.IsError {
		t.Fatalf("a bad hunk was accepted: %s", res.Output)
	}
	for _, w := range []string{"b.txt hunk 1 (@@ -1,3 +1,3 @@)", "Nearest text at line 1 (2 of 3 lines equal)", `line 2 differs: the patch has "TWO", the file has "two"`, "Nothing was applied."} {
		if !strings.Contains(res.Output, w) {
			t.Errorf("error lacks %q:\n%s", w, res.Output)
		}
	}
	if got := e.read("calc.go"); got != patchCalc {
		t.Errorf("calc.go changed: %q", got)
	}
	if _, err := os.Stat(e.abs("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt was created: %v", err)
	}
}

// TestApplyPatchDiskRollsBack: the disk workspace checks and stages every
// file first; a failure while moving them into place puts back those
// already replaced.
func TestApplyPatchDiskRollsBack(t *testing.T) {
	e := newFileEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	pa, _ := e.tc.Resolve("a.txt")
	pb, _ := e.tc.Resolve("b.txt")
	pc, _ := e.tc.Resolve("dir/c.txt")
	pn, _ := e.tc.Resolve("n.txt")
	// c.txt's directory is a file, so staging it fails after a.txt and
	// b.txt were staged.
	writeTestFile(t, e.abs("dir"), "not a directory")
	cs := []Change{
		{Path: pa, Base: Document{Content: []byte("a\n")}, Edits: []TextEdit{{Start: 0, End: 1, NewText: "A"}}, After: []byte("A\n")},
		{Path: pb, Base: Document{Content: []byte("b\n")}, Delete: true},
		{Path: pc, Create: true, Edits: []TextEdit{{NewText: "c"}}, After: []byte("c")},
	}
	if _, err := (DiskWorkspace{}).ApplyAll(t.Context(), cs); err == nil {
		t.Fatal("ApplyAll succeeded over a file where a directory should be")
	}
	if got := e.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := e.read("b.txt"); got != "b\n" {
		t.Errorf("b.txt = %q", got)
	}
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), "cb-") {
			t.Errorf("left behind: %s", en.Name())
		}
	}
	// A failure in the commit phase: the same new file twice passes
	// staging, and the second link finds the first. Everything done
	// before it is put back.
	cs = []Change{
		{Path: pa, Base: Document{Content: []byte("a\n")}, Edits: []TextEdit{{Start: 0, End: 1, NewText: "A"}}, After: []byte("A\n")},
		{Path: pb, Base: Document{Content: []byte("b\n")}, Delete: true},
		{Path: pn, Create: true, Edits: []TextEdit{{NewText: "1"}}, After: []byte("1")},
		{Path: pn, Create: true, Edits: []TextEdit{{NewText: "2"}}, After: []byte("2")},
	}
	if _, err := (DiskWorkspace{}).ApplyAll(t.Context(), cs); err == nil || !strings.Contains(err.Error(), "created by someone else") {
		t.Fatalf("ApplyAll = %v, want the second create refused", err)
	}
	if got := e.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt not put back: %q", got)
	}
	if got := e.read("b.txt"); got != "b\n" {
		t.Errorf("b.txt not put back: %q", got)
	}
	if _, err := os.Stat(e.abs("n.txt")); !os.IsNotExist(err) {
		t.Errorf("n.txt left behind: %v", err)
	}
}

func TestApplyPatchLocates(t *testing.T) {
	for _, tc := range []struct {
		name, file, patch, want, errWant string
	}{
		{
			name:  "drifted line numbers",
			file:  "x\nx2\nalpha\nbeta\ngamma\n",
			patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n",
			want:  "x\nx2\nalpha\nBETA\ngamma\n",
		},
		{
			name:  "whitespace differs",
			file:  "func f() {\n\treturn  1\n}\n",
			patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n func f() {\n-    return 1\n+\treturn 2\n }\n",
			want:  "func f() {\n\treturn 2\n}\n",
		},
		{
			name:    "ambiguous",
			file:    "a\nb\na\nb\n",
			patch:   "--- a/f.txt\n+++ b/f.txt\n@@ -5,2 +5,2 @@\n a\n-b\n+B\n",
			errWant: "match 2 places (lines 1, 3)",
		},
		{
			name:  "CRLF file",
			file:  "one\r\ntwo\r\n",
			patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
			want:  "one\r\nTWO\r\n",
		},
		{
			name:  "no newline at end",
			file:  "one\ntwo",
			patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+three\n\\ No newline at end of file\n",
			want:  "one\nthree",
		},
		{
			name:    "not a diff",
			file:    "x\n",
			patch:   "--- a/f.txt\n+++ b/f.txt\n@@ bogus @@\n-x\n",
			errWant: "the patch is not a valid unified diff",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"f.txt": tc.file})
			res := e.call("apply_patch", argMap{"patch": tc.patch})
			if tc.errWant != "" {
				if !res.IsError || !strings.Contains(res.Output, tc.errWant) {
					t.Errorf("result %q (error=%v), want an error with %q", res.Output, res.IsError, tc.errWant)
				}
				if got := e.read("f.txt"); got != tc.file {
					t.Errorf("file changed: %q", got)
				}
				return
			}
			if res.IsError {
				t.Fatalf("apply_patch: %s", res.Output)
			}
			if got := e.read("f.txt"); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}
