package changeset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The tests here check that keeping a run's changes never loses the
// user's work: what the user did to a file since the run touched it
// wins, and the change stays pending with the reason.

// keepAll keeps everything pending, failing the test on an error.
func (fx *fixture) keepAll() KeepResult {
	fx.t.Helper()
	res, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		fx.t.Fatal(err)
	}
	return res
}

// leftFor returns the reason res left the hunk or group id pending, or "".
func leftFor(res KeepResult, id string) string {
	for _, l := range res.Left {
		if l.Hunk == id {
			return l.Reason
		}
	}
	return ""
}

// fileNamed returns the pending file rel of files.
func fileNamed(t testing.TB, files []File, rel string) File {
	t.Helper()
	for _, f := range files {
		if f.Path.Rel == rel {
			return f
		}
	}
	t.Fatalf("%s is not pending: %+v", rel, files)
	return File{}
}

// A file the run changed and the user deleted since stays a change,
// whatever rescans its layer (a new process, a later command): keeping
// it names the deletion and re-creates nothing.
func TestChangedFileTheUserDeletedIsNotResurrected(t *testing.T) {
	for _, after := range []string{"restart", "exec"} {
		t.Run(after, func(t *testing.T) {
			if after == "exec" {
				needsOverlay(t)
			}
			fx := newFixture(t, map[string]string{"notes.txt": "one\n", "other.txt": "x\n"})
			fx.edit(fx.view, "notes.txt", "one", "ONE")
			fx.edit(fx.view, "other.txt", "x", "X") // the positive control
			if err := os.Remove(filepath.Join(fx.root, "notes.txt")); err != nil {
				t.Fatal(err)
			}
			switch after {
			case "restart":
				fx.reopen()
			case "exec":
				fx.exec("echo made > later.txt", true)
			}
			if f := fileNamed(t, fx.set.Files(), "notes.txt"); f.Kind != KindChanged {
				t.Fatalf("notes.txt is %s after the %s, want changed (what the run recorded)", f.Kind, after)
			}
			id := fileNamed(t, fx.set.Files(), "notes.txt").Hunks[0].ID
			res := fx.keepAll()
			if why := leftFor(res, id); !strings.Contains(why, "notes.txt was deleted or renamed") {
				t.Fatalf("keep = %+v, want notes.txt left pending as deleted by the user", res)
			}
			if got := fx.disk("notes.txt"); !strings.HasPrefix(got, "<") {
				t.Fatalf("keep re-created notes.txt: %q", got)
			}
			if got := fx.disk("other.txt"); got != "X\n" {
				t.Fatalf("other.txt = %q, want the run's change kept", got)
			}
			if f := fileNamed(t, fx.set.Files(), "notes.txt"); f.Hunks[0].Conflict == "" {
				t.Fatalf("notes.txt is pending without its reason: %+v", f)
			}
		})
	}
}

// A command's ignored output keeps a base of its own for each file: a
// file the user changed since is not overwritten, the others are kept.
func TestKeepIgnoredOutputsLeavesTheUsersLaterEdit(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{
		".gitignore":     "settings.local\nbuild/\n",
		"settings.local": "a=1\n",
		"build/a.txt":    "a\n",
		"build/b.txt":    "b\n",
	})
	fx.exec("echo b=2 >> settings.local && echo more >> build/a.txt && echo more >> build/b.txt", true)
	files := fx.set.Files()
	settings, build := fileNamed(t, files, "settings.local"), fileNamed(t, files, "build")
	if settings.Group == nil || build.Group == nil || build.Group.Count != 2 {
		t.Fatalf("files = %+v, want two groups", files)
	}
	writeFile(t, fx.root, "settings.local", "a=1\nmine=3\n")
	writeFile(t, fx.root, "build/a.txt", "a\nmine\n")
	res := fx.keepAll()
	if why := leftFor(res, settings.Group.ID); !strings.Contains(why, "settings.local changed since") {
		t.Fatalf("keep = %+v, want settings.local left pending with the reason", res)
	}
	if why := leftFor(res, build.Group.ID); !strings.Contains(why, "build/a.txt changed since") || strings.Contains(why, "b.txt") {
		t.Fatalf("keep = %+v, want build/a.txt (only) left pending", res)
	}
	if got := fx.disk("settings.local"); got != "a=1\nmine=3\n" {
		t.Fatalf("settings.local = %q: the user's edit was overwritten", got)
	}
	if got := fx.disk("build/a.txt"); got != "a\nmine\n" {
		t.Fatalf("build/a.txt = %q: the user's edit was overwritten", got)
	}
	if got := fx.disk("build/b.txt"); got != "b\nmore\n" {
		t.Fatalf("build/b.txt = %q, want the command's version kept", got)
	}
	files = fx.set.Files()
	if g := fileNamed(t, files, "build"); g.Group.Count != 1 {
		t.Fatalf("build/ pending with %d files, want build/a.txt alone", g.Group.Count)
	}
	fileNamed(t, files, "settings.local")
	// The same survives a restart: the bases are in the manifest.
	fx.reopen()
	res = fx.keepAll()
	if len(res.Kept) != 0 || fx.disk("settings.local") != "a=1\nmine=3\n" {
		t.Fatalf("after a restart keep = %+v, settings.local = %q", res, fx.disk("settings.local"))
	}
	// Put back as the command found it, the file is kept.
	writeFile(t, fx.root, "settings.local", "a=1\n")
	fx.keepAll()
	if got := fx.disk("settings.local"); got != "a=1\nb=2\n" {
		t.Fatalf("settings.local = %q, want the command's version once the user's edit is gone", got)
	}
}

// A command's deletion of a file the user edited since is not kept.
func TestKeepCommandDeletionLeavesTheUsersLaterEdit(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"old.txt": "old\n", "gone.txt": "gone\n"})
	fx.exec("rm old.txt gone.txt", true)
	old := fileNamed(t, fx.set.Files(), "old.txt")
	if old.Kind != KindDeleted {
		t.Fatalf("old.txt is %s", old.Kind)
	}
	writeFile(t, fx.root, "old.txt", "old\nmine\n")
	res := fx.keepAll()
	if why := leftFor(res, old.Hunks[0].ID); !strings.Contains(why, "old.txt changed since the run deleted it") {
		t.Fatalf("keep = %+v, want old.txt left pending with the reason", res)
	}
	if got := fx.disk("old.txt"); got != "old\nmine\n" {
		t.Fatalf("old.txt = %q: the user's edit was deleted", got)
	}
	if got := fx.disk("gone.txt"); !strings.HasPrefix(got, "<") {
		t.Fatalf("gone.txt = %q, want the command's deletion kept", got)
	}
	fileNamed(t, fx.set.Files(), "old.txt")
}

// undo undoes what the ledger holds, as catbuddy.undoRun does.
func (fx *fixture) undo(led *filestate.Ledger) tools.UndoResult {
	fx.t.Helper()
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	res, err := tc.UndoRun(context.Background(), led.Files())
	if err != nil {
		fx.t.Fatalf("undo: %v (%+v)", err, res)
	}
	return res
}

// Undoing a run after two keeps reverts the run's kept hunks alone: the
// line the user typed between the keeps stays.
func TestUndoAfterTwoKeepsKeepsTheUsersTyping(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	led := filestate.NewLedger()
	ctx := filestate.NewLedgerContext(context.Background(), led)
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	hunks := fx.set.Files()[0].Hunks
	if _, err := fx.set.Keep(ctx, Selection{Hunks: []string{hunks[0].ID}}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	typed := strings.Replace(fx.disk("calc.go"), "func C()", "// mine\nfunc C()", 1)
	writeFile(t, fx.root, "calc.go", typed)
	if res, err := fx.set.Keep(ctx, Selection{}, tools.DiskWorkspace{}); err != nil || len(res.Kept) != 1 {
		t.Fatalf("second keep = %+v, %v", res, err)
	}
	// And the user types again after the keeps.
	writeFile(t, fx.root, "calc.go", "// top\n"+fx.disk("calc.go"))
	fx.undo(led)
	want := "// top\n" + strings.Replace(calc, "func C()", "// mine\nfunc C()", 1)
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("after the undo:\n%s\nwant the run's hunks reverted and the user's lines kept:\n%s", got, want)
	}
}

// Where the user's typing between two keeps overlaps what the run kept
// first, the undo names the file and leaves it as it is.
func TestUndoAfterTwoKeepsReportsAConflict(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	led := filestate.NewLedger()
	ctx := filestate.NewLedgerContext(context.Background(), led)
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	hunks := fx.set.Files()[0].Hunks
	if _, err := fx.set.Keep(ctx, Selection{Hunks: []string{hunks[0].ID}}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	typed := strings.Replace(fx.disk("calc.go"), "return 10", "return 100", 1)
	writeFile(t, fx.root, "calc.go", typed)
	if _, err := fx.set.Keep(ctx, Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	before := fx.disk("calc.go")
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	res, err := tc.UndoRun(context.Background(), led.Files())
	if len(res.Left) != 1 || res.Left[0].File != "calc.go" || res.Left[0].Reason == "" {
		t.Fatalf("undo = %+v, %v; want calc.go named with the reason", res, err)
	}
	if got := fx.disk("calc.go"); got != before {
		t.Fatalf("the undo changed calc.go over the user's typing:\n%s", got)
	}
}
