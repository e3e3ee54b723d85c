package tools

import "testing"

// TestChangedLinesOncePerLine: two edits of one line (a rename of two
// words on it) name the line once; separate lines and spans stay.
func TestChangedLinesOncePerLine(t *testing.T) {
	// "a Close b Close\nc\nd\n", both Closes renamed and d made D.
	after := "a Finalize b Finalize\nc\nD\n"
	c := Change{After: []byte(after), Edits: []TextEdit{
		{Start: 2, End: 7, NewText: "Finalize"},
		{Start: 10, End: 15, NewText: "Finalize"},
		{Start: 18, End: 19, NewText: "D"},
	}}
	if got := changedLines(c); got != "lines 1, 3" {
		t.Errorf("changedLines = %q, want %q", got, "lines 1, 3")
	}
}

// TestPendingSaidOnceForSeveralFiles: in a run whose changes wait for
// review, an edit of one file says so on its line; a patch of several
// files lists them and says it once after them.
func TestPendingSaidOnceForSeveralFiles(t *testing.T) {
	e := newFileEnv(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "three\nfour\n"})
	e.ctx = WithRunView(e.ctx, RunView{Workspace: DiskWorkspace{}})
	e.call("read_file", map[string]any{"path": "a.txt"})
	e.call("read_file", map[string]any{"path": "b.txt"})
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n three\n-four\n+FOUR\n"
	res := e.call("apply_patch", map[string]any{"patch": patch})
	want := "Edited a.txt (+1 -1; line 1)\nEdited b.txt (+1 -1; line 2)\nThe 2 edited files are pending the user's review."
	if res.IsError || res.Output != want {
		t.Errorf("patch of two files = %q, want %q", res.Output, want)
	}
	res = e.call("edit_file", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "TWO"})
	if want := "Edited a.txt (+1 -1; line 2): pending the user's review"; res.IsError || res.Output != want {
		t.Errorf("edit of one file = %q, want %q", res.Output, want)
	}
}
