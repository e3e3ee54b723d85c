package changeset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// fixture is a folder with files, a store over it and a run's set.
type fixture struct {
	t     testing.TB
	root  string
	g     *guard.PathGuard
	store *Store
	set   *Set
	view  tools.Workspace
}

func newFixture(t testing.TB, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{t: t, root: g.Roots()[0], g: g}
	fx.reopen()
	return fx
}

// reopen starts over as a new process would: a new store, the set
// found again.
func (fx *fixture) reopen() {
	fx.t.Helper()
	st, err := Open(fx.g, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	fx.store = st
	if fx.set, err = st.Begin("run-1", "test run"); err != nil {
		fx.t.Fatal(err)
	}
	fx.view = fx.set.Workspace(tools.DiskWorkspace{})
}

// runDir is where the set of run id keeps its part for the fixture's
// folder: in the user's state directory, never in the project.
func (fx *fixture) runDir(id string) string {
	fx.t.Helper()
	st, err := userstate.For(fx.store.base, fx.root)
	if err != nil {
		fx.t.Fatal(err)
	}
	return st.Path(runsDir, id)
}

// writeFile writes rel below root, as the user would.
func writeFile(t testing.TB, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) path(rel string) guard.Path {
	fx.t.Helper()
	p, err := fx.g.Resolve(rel)
	if err != nil {
		fx.t.Fatal(err)
	}
	return p
}

// edit replaces old with new in rel through the run's view, as an edit
// tool would.
func (fx *fixture) edit(view tools.Workspace, rel, old, repl string) {
	fx.t.Helper()
	p := fx.path(rel)
	doc, err := view.Read(context.Background(), p)
	if err != nil {
		fx.t.Fatal(err)
	}
	i := strings.Index(string(doc.Content), old)
	if i < 0 {
		fx.t.Fatalf("%q not in %s", old, rel)
	}
	after := string(doc.Content[:i]) + repl + string(doc.Content[i+len(old):])
	c := tools.Change{Path: p, Base: doc, Edits: []tools.TextEdit{{Start: i, End: i + len(old), NewText: repl}}, After: []byte(after)}
	if _, err := view.Apply(context.Background(), c); err != nil {
		fx.t.Fatal(err)
	}
}

func (fx *fixture) disk(rel string) string {
	fx.t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.root, filepath.FromSlash(rel)))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (fx *fixture) read(view tools.Workspace, rel string) string {
	fx.t.Helper()
	doc, err := view.Read(context.Background(), fx.path(rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(doc.Content)
}

const calc = "package calc\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nfunc C() int { return 3 }\n\nfunc D() int { return 4 }\n"

func TestEditsArePendingAndKeepOneHunk(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	if got := fx.disk("calc.go"); got != calc {
		t.Fatalf("disk changed while pending:\n%s", got)
	}
	if got := fx.read(fx.view, "calc.go"); !strings.Contains(got, "return 10") || !strings.Contains(got, "return 40") {
		t.Fatalf("the run's view misses its edits:\n%s", got)
	}
	files := fx.set.Files()
	if len(files) != 1 || files[0].Kind != KindChanged || len(files[0].Hunks) != 2 {
		t.Fatalf("files = %+v", files)
	}
	first, second := files[0].Hunks[0], files[0].Hunks[1]
	res, err := fx.set.Keep(context.Background(), Selection{Hunks: []string{first.ID}}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0] != first.ID || len(res.Left) != 0 {
		t.Fatalf("keep = %+v", res)
	}
	want := strings.Replace(calc, "return 1", "return 10", 1)
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("disk after keeping one hunk:\n%s\nwant:\n%s", got, want)
	}
	// The other hunk is still pending, with the same ID.
	files = fx.set.Files()
	if len(files) != 1 || len(files[0].Hunks) != 1 || files[0].Hunks[0].ID != second.ID {
		t.Fatalf("after keep: %+v", files)
	}
	discarded, err := fx.set.Discard(Selection{})
	if err != nil || len(discarded) != 1 || discarded[0] != second.ID {
		t.Fatalf("discard = %v, %v", discarded, err)
	}
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("discard touched the disk:\n%s", got)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Fatalf("%d files still pending", n)
	}
	if got := fx.read(fx.view, "calc.go"); got != want {
		t.Fatalf("the run's view after all was decided:\n%s", got)
	}
	news := fx.set.TakeNews()
	if !strings.Contains(news, "kept hunk 1 of calc.go") || !strings.Contains(news, "discarded hunk 1 of calc.go") || !strings.Contains(news, `"func D() int { return 4 }"`) {
		t.Fatalf("news = %q", news)
	}
	if _, err := os.Stat(fx.runDir("run-1")); !os.IsNotExist(err) {
		t.Fatalf("an empty set left its directory: %v", err)
	}
}

func TestKeepMergesTypingAndReportsConflict(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	// The user types: one change far from the run's hunks, one on the
	// line of the second hunk.
	typed := strings.Replace(strings.Replace(calc, "return 2", "return 22", 1), "return 4", "return 44", 1)
	if err := os.WriteFile(filepath.Join(fx.root, "calc.go"), []byte(typed), 0o644); err != nil {
		t.Fatal(err)
	}
	hunks := fx.set.Files()[0].Hunks
	res, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0] != hunks[0].ID {
		t.Fatalf("kept %v, want the first hunk", res.Kept)
	}
	if len(res.Left) != 1 || res.Left[0].Hunk != hunks[1].ID || !strings.Contains(res.Left[0].Reason, "line 9") {
		t.Fatalf("left = %+v", res.Left)
	}
	want := strings.Replace(typed, "return 1", "return 10", 1)
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("disk:\n%s\nwant:\n%s", got, want)
	}
	files := fx.set.Files()
	if len(files) != 1 || len(files[0].Hunks) != 1 || files[0].Hunks[0].Conflict == "" {
		t.Fatalf("the conflicting hunk is not pending with its reason: %+v", files)
	}
}

func TestCreateAndDeleteArePending(t *testing.T) {
	fx := newFixture(t, map[string]string{"old.txt": "old\n"})
	ctx := context.Background()
	p := fx.path("new.txt")
	if _, err := fx.view.Apply(ctx, tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: "new\n"}}, After: []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	old := fx.path("old.txt")
	doc, _ := fx.view.Read(ctx, old)
	if _, err := fx.view.Apply(ctx, tools.Change{Path: old, Base: doc, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if fx.disk("old.txt") != "old\n" || !strings.HasPrefix(fx.disk("new.txt"), "<") {
		t.Fatal("the disk changed while pending")
	}
	if got := fx.read(fx.view, "old.txt"); !strings.Contains(got, "no such file") && !strings.Contains(got, "not exist") {
		t.Fatalf("a pending deletion reads as %q", got)
	}
	files := fx.set.Files()
	if len(files) != 2 || files[0].Kind != KindCreated || files[1].Kind != KindDeleted {
		t.Fatalf("files = %+v", files)
	}
	if _, err := fx.set.Keep(ctx, Selection{Files: []guard.Path{old}}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fx.disk("old.txt"), "<") {
		t.Fatal("the kept deletion did not delete")
	}
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	if got := fx.read(fx.view, "new.txt"); !strings.HasPrefix(got, "<") {
		t.Fatalf("a discarded created file is still there: %q", got)
	}
}

func TestSetSurvivesRestart(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 3", "return 30")
	want := fx.set.Files()
	// A crash: nothing is closed, a new store opens the same folder.
	fx.reopen()
	got := fx.store.Pending()
	if len(got) != 1 || got[0].RunID() != "run-1" || got[0].Title() != "test run" {
		t.Fatalf("pending after restart = %v", got)
	}
	files := got[0].Files()
	if len(files) != 1 || files[0].Hunks[0].ID != want[0].Hunks[0].ID {
		t.Fatalf("files after restart = %+v, want %+v", files, want)
	}
	if _, err := got[0].Keep(context.Background(), Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	if fx.disk("calc.go") != strings.Replace(calc, "return 3", "return 30", 1) {
		t.Fatal("keep after restart did not land")
	}
}

func TestTwoRunsOnOneFileBothKeep(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	other, err := fx.store.Begin("run-2", "second")
	if err != nil {
		t.Fatal(err)
	}
	view2 := other.Workspace(tools.DiskWorkspace{})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(view2, "calc.go", "return 4", "return 40")
	if _, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	res, err := other.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil || len(res.Left) != 0 {
		t.Fatalf("second keep = %+v, %v", res, err)
	}
	want := strings.Replace(strings.Replace(calc, "return 1", "return 10", 1), "return 4", "return 40", 1)
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("disk:\n%s\nwant:\n%s", got, want)
	}
}

func TestHunkIDsStableAcrossEdits(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	id := fx.set.Files()[0].Hunks[0].ID
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	hs := fx.set.Files()[0].Hunks
	if len(hs) != 2 || hs[1].ID != id || hs[0].ID == id {
		t.Fatalf("IDs %v, %v; want the second to stay %s", hs[0].ID, hs[1].ID, id)
	}
}

// A file the user deleted while its change was pending is named, and
// the change stays pending; nothing else is kept half.
func TestKeepAfterTheUserDeletedTheFile(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc, "b.txt": "b\n"})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "b.txt", "b", "B")
	if err := os.Remove(filepath.Join(fx.root, "calc.go")); err != nil {
		t.Fatal(err)
	}
	res, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Left) != 1 || !strings.Contains(res.Left[0].Reason, "calc.go was deleted or renamed while the change was pending") {
		t.Fatalf("left = %+v", res.Left)
	}
	if fx.disk("b.txt") != "B\n" || !strings.HasPrefix(fx.disk("calc.go"), "<") {
		t.Fatalf("b.txt %q, calc.go %q", fx.disk("b.txt"), fx.disk("calc.go"))
	}
	if files := fx.set.Files(); len(files) != 1 || files[0].Path.Rel != "calc.go" {
		t.Fatalf("pending after the keep: %+v", files)
	}
}

// InText moves each hunk onto the user's text as it now is, and marks
// the one the typing touches.
func TestHunksInTheCurrentText(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	fx.edit(fx.view, "calc.go", "return 2", "return 20")
	typed := "// typed\n" + strings.Replace(calc, "return 2", "return 22", 1)
	writeFile(t, fx.root, "calc.go", typed)
	f := fx.set.Files()[0]
	hs, err := fx.set.InText(context.Background(), f, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if hs[0].Conflict == "" || hs[1].Conflict != "" {
		t.Fatalf("conflicts: %q, %q", hs[0].Conflict, hs[1].Conflict)
	}
	e := hs[1].Edit
	if got := typed[e.Start:e.End]; got != "func D() int { return 4 }\n" || e.NewText != "func D() int { return 40 }\n" {
		t.Fatalf("the second hunk in the current text covers %q → %q", got, e.NewText)
	}
}
