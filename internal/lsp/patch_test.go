package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

const threeFilePatch = `--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
--- /dev/null
+++ b/new/n.txt
@@ -0,0 +1,1 @@
+fresh
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`

// TestApplyPatchIsOneReview: a patch over three files (edit, create,
// delete) reaches the editor as ONE workspace/applyEdit with CreateFile
// and DeleteFile, and every file ends as the patch says.
func TestApplyPatchIsOneReview(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\none\ntwo\nthree\n-- gone.txt --\nbye\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	out, isErr := e.RunTool("apply_patch", map[string]any{"patch": threeFilePatch})
	if isErr {
		t.Fatalf("apply_patch: %s", out)
	}
	edits := e.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests, want 1", len(edits))
	}
	var kinds []string
	for _, dc := range edits[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.CreateFile:
			kinds = append(kinds, "create "+filepath.Base(pathOf(t, c.URI)))
		case *protocol.DeleteFile:
			kinds = append(kinds, "delete "+filepath.Base(pathOf(t, c.URI)))
		case *protocol.TextDocumentEdit:
			kinds = append(kinds, "edit "+filepath.Base(pathOf(t, c.TextDocument.URI)))
		}
	}
	if got, want := strings.Join(kinds, ", "), "edit a.txt, create n.txt, edit n.txt, delete gone.txt"; got != want {
		t.Errorf("documentChanges: %s, want %s", got, want)
	}
	if got := e.Text(u); got != "one\nTWO\nthree\n" {
		t.Errorf("a.txt buffer = %q", got)
	}
	if got := e.Text(fileuri.FromPath(filepath.Join(dir, "new", "n.txt"))); got != "fresh\n" {
		t.Errorf("n.txt buffer = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt not deleted: %v", err)
	}
	for _, w := range []string{"Edited a.txt (+1 -1)", "Created new/n.txt (+1 -0)", "Deleted gone.txt (+0 -1)"} {
		if !strings.Contains(out, w) {
			t.Errorf("answer lacks %q:\n%s", w, out)
		}
	}
}

// TestApplyPatchMoveIsOneReview: a *** Move to reaches the editor in the
// same one workspace/applyEdit as the rest: the old file deleted, the new
// one created with the patched text.
func TestApplyPatchMoveIsOneReview(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\none\ntwo\nthree\n")
	e := newEditor(t, dir)
	out, isErr := e.RunTool("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b/a.txt\n@@\n one\n-two\n+TWO\n*** End Patch"})
	if isErr {
		t.Fatalf("apply_patch: %s", out)
	}
	edits := e.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests, want 1", len(edits))
	}
	var kinds []string
	for _, dc := range edits[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.CreateFile:
			kinds = append(kinds, "create "+pathOf(t, c.URI)[len(dir)+1:])
		case *protocol.DeleteFile:
			kinds = append(kinds, "delete "+pathOf(t, c.URI)[len(dir)+1:])
		case *protocol.TextDocumentEdit:
			kinds = append(kinds, "edit "+pathOf(t, c.TextDocument.URI)[len(dir)+1:])
		}
	}
	if got, want := strings.Join(kinds, ", "), "delete a.txt, create b/a.txt, edit b/a.txt"; got != want {
		t.Errorf("documentChanges: %s, want %s", got, want)
	}
	if got := e.Text(fileuri.FromPath(filepath.Join(dir, "b", "a.txt"))); got != "one\nTWO\nthree\n" {
		t.Errorf("b/a.txt buffer = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt not deleted: %v", err)
	}
	if !strings.Contains(out, "Moved a.txt to b/a.txt (+1 -1)") {
		t.Errorf("answer lacks the move:\n%s", out)
	}
}

// TestApplyPatchBadHunkSendsNothing: one hunk that does not match, and
// the editor is never asked.
func TestApplyPatchBadHunkSendsNothing(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\none\ntwo\nthree\n-- gone.txt --\nbye\n")
	e := newEditor(t, dir)
	bad := strings.Replace(threeFilePatch, "-bye", "-hello", 1)
	out, isErr := e.RunTool("apply_patch", map[string]any{"patch": bad})
	if !isErr || !strings.Contains(out, "gone.txt hunk 1") || !strings.Contains(out, "Nothing was applied") {
		t.Errorf("answer %q (error=%v), want an error naming gone.txt hunk 1", out, isErr)
	}
	if n := len(e.AppliedEdits()); n != 0 {
		t.Errorf("%d applyEdit requests sent for a patch that does not apply", n)
	}
	out, isErr = e.RunTool("apply_patch", map[string]any{"patch": "this is not a diff"})
	if !isErr || !strings.Contains(out, "not a valid unified diff") && !strings.Contains(out, "holds no file") {
		t.Errorf("answer to garbage: %q", out)
	}
}

// TestApplyPatchPartialAccept: the user unticks one hunk of the patch;
// the answer names it and the other files are reported as applied.
func TestApplyPatchPartialAccept(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n-- gone.txt --\nbye\n")
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "a.txt"))
	e.SetApplyEdit(fake.AcceptHunks(func(label string) bool { return label != "a.txt: line 7" }))
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -6,3 +6,3 @@\n six\n-seven\n+SEVEN\n eight\n"
	out, isErr := e.RunTool("apply_patch", map[string]any{"patch": patch})
	if isErr {
		t.Fatalf("apply_patch: %s", out)
	}
	if want := `Applied 1 of 2 hunks to a.txt; the user rejected hunk 2 (line 7: "seven" → "SEVEN")`; !strings.Contains(out, want) {
		t.Errorf("answer:\n%s\nwant %q", out, want)
	}
}
