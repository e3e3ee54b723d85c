package tools

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
)

const landedSrc = `package calc

// Add adds.
func Add(a, b int) int {
	total := a + b
	return total
}

// Sub subtracts.
func Sub(a, b int) int {
	return a - b
}

// Mul multiplies.
func Mul(a, b int) int {
	return a * b
}
`

// namedRanges returns the line ranges a compact result names, in order:
// "line 4" → [4,4], "lines 5–7" → [5,7].
func namedRanges(t *testing.T, out string) [][2]int {
	t.Helper()
	var rs [][2]int
	for _, m := range regexp.MustCompile(`lines? (\d+)(?:–(\d+))?`).FindAllStringSubmatch(out, -1) {
		a, _ := strconv.Atoi(m[1])
		b := a
		if m[2] != "" {
			b, _ = strconv.Atoi(m[2])
		}
		rs = append(rs, [2]int{a, b})
	}
	return rs
}

// fileLinesOf returns lines first..last (1-based) of content, each with
// its newline.
func fileLinesOf(content string, first, last int) string {
	lines := strings.SplitAfter(content, "\n")
	if first < 1 || last > len(lines) || first > last {
		return "<out of range>"
	}
	return strings.Join(lines[first-1:last], "")
}

// TestCompactEditResult: an edit that landed as the model wrote it is
// answered with the file, +N -M, the lines its text now holds (read
// there, they are the model's new text) and the unchanged line on each
// side, never the new text again; the editor still gets the diff.
func TestCompactEditResult(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": landedSrc})
	e.call("read_file", argMap{"path": "calc.go"})

	newText := "\tsum := a + b\n\t// the sum, checked\n\treturn sum\n"
	res := e.call("edit_file", argMap{"path": "calc.go", "old_string": "\ttotal := a + b\n\treturn total\n", "new_string": newText})
	want := "Edited calc.go (+3 -2): lines 5–7\n4\tfunc Add(a, b int) int {\n8\t}"
	if res.IsError || res.Output != want {
		t.Fatalf("edit_file answered:\n%s\nwant:\n%s", res.Output, want)
	}
	got := e.read("calc.go")
	if r := namedRanges(t, res.Output)[0]; fileLinesOf(got, r[0], r[1]) != newText {
		t.Errorf("lines %v hold %q, want the new text %q", r, fileLinesOf(got, r[0], r[1]), newText)
	}
	if len(res.Edits) != 1 || !strings.Contains(res.Edits[0].Diff, "+\t// the sum, checked") {
		t.Errorf("EditInfo lost the diff: %+v", res.Edits)
	}

	// Several places, one of them a deletion: every range is named and
	// exact in the file as it now is.
	res = e.call("multi_edit", argMap{"path": "calc.go", "edits": []map[string]string{
		{"old_string": "// Sub subtracts.\n", "new_string": ""},
		{"old_string": "\treturn a * b\n", "new_string": "\tp := a * b\n\treturn p\n"},
		{"old_string": "package calc\n", "new_string": "// Package calc does sums.\npackage calc\n"},
	}})
	want = "Edited calc.go (+3 -2): line 1, removed after line 10, lines 17–18\n" +
		"2\tpackage calc\n10\t\n11\tfunc Sub(a, b int) int {\n16\tfunc Mul(a, b int) int {\n19\t}"
	if res.IsError || res.Output != want {
		t.Fatalf("multi_edit answered:\n%s\nwant:\n%s", res.Output, want)
	}
	got = e.read("calc.go")
	rs := namedRanges(t, strings.SplitN(res.Output, "\n", 2)[0])
	if fileLinesOf(got, rs[0][0], rs[0][1]) != "// Package calc does sums.\n" || fileLinesOf(got, rs[2][0], rs[2][1]) != "\tp := a * b\n\treturn p\n" {
		t.Errorf("named lines %v do not hold the new text:\n%s", rs, got)
	}
	if fileLinesOf(got, 10, 11) != "\nfunc Sub(a, b int) int {\n" {
		t.Errorf("the deletion is not after line 10:\n%s", got)
	}

	// A created file is its head alone: the model wrote all of it.
	res = e.call("write_file", argMap{"path": "calc_test.go", "content": "package calc\n\nimport \"testing\"\n"})
	if res.IsError || res.Output != "Created calc_test.go (+3 -0)" {
		t.Errorf("write_file of a new file answered:\n%s", res.Output)
	}
}

// TestCompactPatchResult: apply_patch answers one line per file.
func TestCompactPatchResult(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": landedSrc, "old.txt": "x\ny\n"})
	e.call("read_file", argMap{"path": "calc.go"})
	e.call("read_file", argMap{"path": "old.txt"})
	patch := `--- a/calc.go
+++ b/calc.go
@@ -4,4 +4,4 @@
 func Add(a, b int) int {
-	total := a + b
-	return total
+	sum := a + b
+	return sum
 }
@@ -15,3 +15,4 @@
 func Mul(a, b int) int {
+	// Mul is exact for small ints.
 	return a * b
 }
--- /dev/null
+++ b/calc_test.go
@@ -0,0 +1,3 @@
+package calc
+
+import "testing"
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
`
	res := e.call("apply_patch", argMap{"patch": patch})
	want := "Edited calc.go (+3 -2): lines 5–6, line 16\nCreated calc_test.go (+3 -0)\nDeleted old.txt (+0 -2)"
	if res.IsError || res.Output != want {
		t.Fatalf("apply_patch answered:\n%s\nwant:\n%s", res.Output, want)
	}
	got := e.read("calc.go")
	if fileLinesOf(got, 5, 6) != "\tsum := a + b\n\treturn sum\n" || fileLinesOf(got, 16, 16) != "\t// Mul is exact for small ints.\n" {
		t.Errorf("named lines do not hold the patch's new text:\n%s", got)
	}
}

// TestLooseHunkShowsDiff: a hunk found only with whitespace ignored
// lands with the file's own context lines, not the patch's, so the
// result says so and shows what landed.
func TestLooseHunkShowsDiff(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": landedSrc})
	e.call("read_file", argMap{"path": "calc.go"})
	patch := "--- a/calc.go\n+++ b/calc.go\n@@ -10,3 +10,3 @@\n func Sub(a, b int)  int {\n-    return a - b\n+\treturn b - a\n }\n"
	res := e.call("apply_patch", argMap{"patch": patch})
	if res.IsError {
		t.Fatalf("apply_patch: %s", res.Output)
	}
	for _, w := range []string{"calc.go: hunk 1 matched the file only with whitespace or quotes ignored", "Edited calc.go (+1 -1)\n--- a/calc.go\n+++ b/calc.go\n", "\n func Sub(a, b int) int {\n-\treturn a - b\n+\treturn b - a\n"} {
		if !strings.Contains(res.Output, w) {
			t.Errorf("result lacks %q:\n%s", w, res.Output)
		}
	}
}

// landingWorkspace lands changes as an editor might: it drops the hunks
// listed in reject (the user kept the others), or passes the new text
// through reshape (format on save), and reports the document as it is.
type landingWorkspace struct {
	Workspace
	reject  []int
	reshape func([]byte) []byte
}

func (w *landingWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	landed := c
	if len(w.reject) > 0 {
		landed.Edits = diff.Without(c.Edits, w.reject)
	}
	after, err := diff.Apply(c.Base.Content, landed.Edits)
	if err != nil {
		return Document{}, err
	}
	if w.reshape != nil {
		after = w.reshape(after)
	}
	landed.After, landed.Edits = after, diff.LineEdits(c.Base.Content, after)
	doc, err := w.Workspace.Apply(ctx, landed)
	if err != nil {
		return Document{}, err
	}
	doc.Content, doc.Rejected = after, w.reject
	return doc, nil
}

// TestLandedOtherwiseShowsDiff: what the user or the editor changed as
// the edit landed is news to the model: the result carries the diff of
// what the file now holds.
func TestLandedOtherwiseShowsDiff(t *testing.T) {
	t.Run("partly rejected", func(t *testing.T) {
		e := newFileEnv(t, map[string]string{"calc.go": landedSrc})
		e.tc.Workspace = &landingWorkspace{Workspace: DiskWorkspace{}, reject: []int{0}}
		e.call("read_file", argMap{"path": "calc.go"})
		res := e.call("multi_edit", argMap{"path": "calc.go", "edits": []map[string]string{
			{"old_string": "return total", "new_string": "return total + 0"},
			{"old_string": "return a * b", "new_string": "return b * a"},
		}})
		for _, w := range []string{"Applied 1 of 2 hunks to calc.go; the user rejected hunk 1", "-\treturn a * b\n+\treturn b * a\n"} {
			if !strings.Contains(res.Output, w) {
				t.Errorf("result lacks %q:\n%s", w, res.Output)
			}
		}
	})
	t.Run("reformatted", func(t *testing.T) {
		e := newFileEnv(t, map[string]string{"calc.go": landedSrc})
		e.tc.Workspace = &landingWorkspace{Workspace: DiskWorkspace{}, reshape: func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("total*2"), []byte("total * 2")) // a formatter's spacing
		}}
		e.call("read_file", argMap{"path": "calc.go"})
		res := e.call("edit_file", argMap{"path": "calc.go", "old_string": "return total", "new_string": "return total*2"})
		want := "calc.go holds other text than this edit sent: the editor changed it as it landed"
		if res.IsError || !strings.HasPrefix(res.Output, want) || !strings.Contains(res.Output, "Edited calc.go (+1 -1)\n--- a/calc.go") || !strings.Contains(res.Output, "+\treturn total * 2\n") {
			t.Errorf("result:\n%s\nwant it to start %q and show the diff", res.Output, want)
		}
		if got := e.read("calc.go"); got != strings.Replace(landedSrc, "return total", "return total * 2", 1) {
			t.Errorf("calc.go = %q", got)
		}
	})
}
