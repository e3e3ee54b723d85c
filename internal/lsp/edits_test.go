package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

func applyProbe(t *testing.T, e *fake.Editor, args map[string]any) (string, bool) {
	t.Helper()
	return e.RunTool("test_apply", args)
}

func TestEditIsVersionPinnedAndAnnotated(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nhello world\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	e.Replace(u, "hello", "hi") // version 2: "hi world\n"

	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 3, "end": 8, "text": "there"})
	if isErr {
		t.Fatalf("apply: %s", out)
	}
	if got := e.Text(u); got != "hi there\n" {
		t.Errorf("buffer = %q", got)
	}
	if !strings.Contains(out, "open=true version=3") {
		t.Errorf("result %q: want the buffer's new version 3", out)
	}
	edits := e.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests, want 1", len(edits))
	}
	we := edits[0].Edit
	if len(we.DocumentChanges) != 1 {
		t.Fatalf("documentChanges = %d, want 1", len(we.DocumentChanges))
	}
	tde, ok := we.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if !ok {
		t.Fatalf("documentChanges[0] is %T", we.DocumentChanges[0])
	}
	if tde.TextDocument.Version == nil || *tde.TextDocument.Version != 2 {
		t.Errorf("edit pinned to %v, want version 2", tde.TextDocument.Version)
	}
	ate, ok := tde.Edits[0].(*protocol.AnnotatedTextEdit)
	if !ok {
		t.Fatalf("edit is %T, want an AnnotatedTextEdit for a client with annotation support", tde.Edits[0])
	}
	want := protocol.Range{Start: protocol.Position{Line: 0, Character: 3}, End: protocol.Position{Line: 0, Character: 8}}
	if ate.Range != want || ate.NewText != "there" {
		t.Errorf("edit = %+v %q, want %+v \"there\"", ate.Range, ate.NewText, want)
	}
	ann, ok := we.ChangeAnnotations[ate.AnnotationID]
	if !ok || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation {
		t.Errorf("annotation %q: %+v, want needsConfirmation", ate.AnnotationID, ann)
	}
	if edits[0].Metadata != nil {
		t.Errorf("metadata %+v sent; isRefactoring makes VS Code auto-save", edits[0].Metadata)
	}
}

func TestPlainEditsWithoutAnnotationSupport(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nabc\n")
	e := fake.New(t, fake.Options{
		Folders:      []string{dir},
		Server:       lsp.Options{RegisterTools: testTools},
		Capabilities: func(c *protocol.ClientCapabilities) { c.Workspace.WorkspaceEdit.ChangeAnnotationSupport = nil },
	})
	e.OpenFile(filepath.Join(dir, "a.txt"))
	if out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 1, "text": "A"}); isErr {
		t.Fatalf("apply: %s", out)
	}
	we := e.AppliedEdits()[0].Edit
	if we.ChangeAnnotations != nil {
		t.Errorf("changeAnnotations sent to a client without support: %+v", we.ChangeAnnotations)
	}
	if _, ok := we.DocumentChanges[0].(*protocol.TextDocumentEdit).Edits[0].(*protocol.TextEdit); !ok {
		t.Errorf("want a plain TextEdit")
	}
}

func TestRejectedEditChangesNothing(t *testing.T) {
	for _, tc := range []struct{ reason, want string }{
		{"user said no", "user said no"},
		{"", "rejected by the user or editor"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			dir := writeTree(t, "-- a.txt --\nkeep\n")
			e := newEditor(t, dir)
			u := e.OpenFile(filepath.Join(dir, "a.txt"))
			e.SetApplyEdit(fake.Reject(tc.reason))
			out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 4, "text": "lose"})
			if !isErr || !strings.Contains(out, "not applied") || !strings.Contains(out, tc.want) {
				t.Errorf("result %q (error=%v): want an error naming %q", out, isErr, tc.want)
			}
			if got := e.Text(u); got != "keep\n" {
				t.Errorf("buffer = %q", got)
			}
			if disk, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(disk) != "keep\n" {
				t.Errorf("disk = %q", disk)
			}
		})
	}
}

// TestEditOfChangedBufferIsRefusedBeforeSending: a Change computed from
// content the buffer no longer holds is refused without asking the editor.
func TestEditOfChangedBufferIsRefusedBeforeSending(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nabc\n")
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "a.txt"))
	out, isErr := e.RunTool("edit_file", map[string]string{"path": "a.txt", "old_string": "zzz", "new_string": "y"})
	if !isErr {
		t.Errorf("edit_file of text not in the buffer succeeded: %s", out)
	}
	if n := len(e.AppliedEdits()); n != 0 {
		t.Errorf("%d applyEdit requests sent for an edit that cannot apply", n)
	}
}

func TestCreateFile(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	out, isErr := applyProbe(t, e, map[string]any{"path": "sub/new.txt", "create": true, "text": "fresh 😀\n"})
	if isErr {
		t.Fatalf("create: %s", out)
	}
	edits := e.AppliedEdits()
	if len(edits) != 1 || len(edits[0].Edit.DocumentChanges) != 2 {
		t.Fatalf("want one applyEdit with CreateFile + TextDocumentEdit, got %+v", edits)
	}
	cf, ok := edits[0].Edit.DocumentChanges[0].(*protocol.CreateFile)
	if !ok || cf.Kind != "create" || !strings.HasSuffix(string(cf.URI), "/sub/new.txt") {
		t.Errorf("documentChanges[0] = %#v, want CreateFile for sub/new.txt", edits[0].Edit.DocumentChanges[0])
	}
	tde := edits[0].Edit.DocumentChanges[1].(*protocol.TextDocumentEdit)
	if tde.TextDocument.Version != nil {
		t.Errorf("new file's edit pinned to version %d, want null", *tde.TextDocument.Version)
	}
	u := fileuri.FromPath(filepath.Join(dir, "sub", "new.txt"))
	if got := e.Text(u); got != "fresh 😀\n" {
		t.Errorf("editor buffer = %q", got)
	}
	if got := readProbe(t, e, "sub/new.txt"); got != "fresh 😀\n" {
		t.Errorf("tools read %q", got)
	}
}

func TestCreateFileThatAppearedMeanwhile(t *testing.T) {
	dir := writeTree(t, "-- exists.txt --\nmine\n")
	e := newEditor(t, dir)
	out, isErr := applyProbe(t, e, map[string]any{"path": "exists.txt", "create": true, "text": "theirs\n"})
	if !isErr || !strings.Contains(out, "created by someone else") {
		t.Errorf("create over an existing file: %q", out)
	}
	if n := len(e.AppliedEdits()); n != 0 {
		t.Errorf("%d applyEdit requests sent", n)
	}
}

// TestEditClosedFile: a file that is not open is edited with version null;
// the editor opens it (didOpen) and applies the edit, which confirms it.
func TestEditClosedFile(t *testing.T) {
	dir := writeTree(t, "-- closed.txt --\nalpha\nbeta\n")
	e := newEditor(t, dir)
	out, isErr := applyProbe(t, e, map[string]any{"path": "closed.txt", "start": 6, "end": 10, "text": "BETA"})
	if isErr {
		t.Fatalf("apply: %s", out)
	}
	tde := e.AppliedEdits()[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if tde.TextDocument.Version != nil {
		t.Errorf("closed file's edit pinned to %d, want null", *tde.TextDocument.Version)
	}
	if got := e.Text(fileuri.FromPath(filepath.Join(dir, "closed.txt"))); got != "alpha\nBETA\n" {
		t.Errorf("buffer = %q", got)
	}
}

// TestAppliedButNeverLanded: the editor answers applied:true and changes
// nothing (Neovim with a stale edit). The tool must report that the edit
// did not land, after the grace period.
func TestAppliedButNeverLanded(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nsame\n")
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools, EditGrace: 300 * time.Millisecond}})
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	e.SetApplyEdit(fake.Lie)
	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 4, "text": "diff"})
	if !isErr || !strings.Contains(out, "reported the edit as applied but the buffer did not change") {
		t.Errorf("lie accepted: %q (error=%v)", out, isErr)
	}
	if got := e.Text(u); got != "same\n" {
		t.Errorf("buffer = %q", got)
	}
}

// TestAppliedLateButWithinGrace: the didChange arrives after the answer
// (Neovim's debounce); the edit is confirmed.
func TestAppliedLateButWithinGrace(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nslow\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	answered := make(chan struct{})
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		go func() {
			<-answered
			e.Replace(u, "slow", "fast")
		}()
		return &protocol.ApplyWorkspaceEditResult{Applied: true}
	})
	type result struct {
		out   string
		isErr bool
	}
	done := make(chan result, 1)
	go func() {
		out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": 0, "end": 4, "text": "fast"})
		done <- result{out, isErr}
	}()
	e.Await("the applyEdit request", func() bool { return len(e.AppliedEdits()) == 1 })
	close(answered)
	if r := <-done; r.isErr {
		t.Errorf("late didChange not accepted as confirmation: %s", r.out)
	}
}

// TestFileEditNotifications: edit_file reports catbuddy/fileEdit writing
// then done with line counts, and a window/logMessage.
func TestFileEditNotifications(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\none\ntwo\n")
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "a.txt"))
	if out, isErr := e.RunTool("edit_file", map[string]string{"path": "a.txt", "old_string": "two", "new_string": "2\n3"}); isErr {
		t.Fatalf("edit_file: %s", out)
	}
	e.Await("fileEdit done", func() bool {
		for _, n := range e.Notifications(lsp.MethodFileEdit) {
			if strings.Contains(string(n), `"done"`) {
				return true
			}
		}
		return false
	})
	notes := e.Notifications(lsp.MethodFileEdit)
	if !strings.Contains(string(notes[0]), `"phase":"writing"`) {
		t.Errorf("first fileEdit = %s, want phase writing", notes[0])
	}
	last := string(notes[len(notes)-1])
	if !strings.Contains(last, `"added":2`) || !strings.Contains(last, `"removed":1`) || !strings.Contains(last, "a.txt") {
		t.Errorf("done fileEdit = %s, want +2 -1 for a.txt", last)
	}
	if len(e.Notifications(protocol.MethodWindowLogMessage)) == 0 {
		t.Errorf("no window/logMessage for the edit")
	}
}

// TestAppliedAmidTyping: the user types right after the editor applied the
// edit, before the server confirmed it, so the buffer never equals the
// expected text exactly. The edit
// did land and must be reported as made; a stale edit skipped while the
// user typed (Neovim's lie) still is not.
func TestAppliedAmidTyping(t *testing.T) {
	tree := "-- a.txt --\nfirst line of the file\nsecond line, to be fixed\nthird line stays as it is\nfourth line is where the user types\n"
	dir := writeTree(t, tree)
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.txt"))
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		res := fake.Accept(e, p)
		e.Replace(u, "where the user types", "where the user typed this")
		return res
	})
	start := strings.Index(tree[strings.Index(tree, "\n")+1:], "to be fixed")
	out, isErr := applyProbe(t, e, map[string]any{"path": "a.txt", "start": start, "end": start + len("to be fixed"), "text": "now fixed"})
	if isErr {
		t.Fatalf("a merged edit was reported as not made: %s", out)
	}
	want := "first line of the file\nsecond line, now fixed\nthird line stays as it is\nfourth line is where the user typed this\n"
	if got := e.Text(u); got != want {
		t.Errorf("buffer = %q, want %q", got, want)
	}

	// The same typing with the edit skipped: not landed.
	e.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		e.Replace(u, "typed this", "typed more")
		return &protocol.ApplyWorkspaceEditResult{Applied: true}
	})
	text := e.Text(u)
	start = strings.Index(text, "stays as it is")
	out, isErr = applyProbe(t, e, map[string]any{"path": "a.txt", "start": start, "end": start + len("stays"), "text": "changes"})
	if !isErr || !strings.Contains(out, "did not change") {
		t.Errorf("a skipped edit amid typing was accepted: %q (error=%v)", out, isErr)
	}
}
