package changeset

import (
	"context"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The tests here check that a keep resolves each conflict as
// Selection.Conflicts says, and nothing else of the user's text.

func (fx *fixture) keepAs(ctx context.Context, how Resolution, rels ...string) KeepResult {
	fx.t.Helper()
	sel := Selection{Conflicts: how}
	for _, rel := range rels {
		sel.Files = append(sel.Files, fx.path(rel))
	}
	res, err := fx.set.Keep(ctx, sel, tools.DiskWorkspace{})
	if err != nil {
		fx.t.Fatal(err)
	}
	return res
}

// A plain keep leaves the conflict and tells the agent which hunk and
// why; markers then writes git's markers around the user's lines and the
// run's, merges the clean hunk beside it, and an undo takes back the
// two and nothing the user typed.
func TestKeepMarkersOverTheUsersLine(t *testing.T) {
	fx := newFixture(t, map[string]string{"calc.go": calc})
	led := filestate.NewLedger()
	ctx := filestate.NewLedgerContext(context.Background(), led)
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "calc.go", "return 4", "return 40")
	typed := strings.NewReplacer("return 1 ", "return 100 ", "package calc\n", "package calc // mine\n").Replace(calc)
	writeFile(t, fx.root, "calc.go", typed)
	res := fx.keepAs(ctx, ResolveNone)
	if len(res.Kept) != 1 || len(res.Left) != 1 || len(res.Resolved) != 0 {
		t.Fatalf("plain keep = %+v, want the clean hunk kept and the conflict left", res)
	}
	if news := fx.set.TakeNews(); !strings.Contains(news, "Hunk 1 of calc.go") || !strings.Contains(news, "is still pending: the user changed lines at or next to line 3") {
		t.Errorf("news of the left conflict = %q", news)
	}
	res = fx.keepAs(ctx, ResolveMarkers)
	if len(res.Kept) != 1 || len(res.Resolved) != 1 || res.Resolved[0].How != ResolveMarkers || len(res.Left) != 0 {
		t.Fatalf("keep with markers = %+v", res)
	}
	want := strings.Replace(typed, "func A() int { return 100 }\n",
		"<<<<<<< yours\nfunc A() int { return 100 }\n=======\nfunc A() int { return 10 }\n>>>>>>> run run-1 (test run)\n", 1)
	want = strings.Replace(want, "return 4", "return 40", 1)
	if got := fx.disk("calc.go"); got != want {
		t.Fatalf("calc.go:\n%s\nwant:\n%s", got, want)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Errorf("%d files pending after the resolution, want none", n)
	}
	if news := fx.set.TakeNews(); !strings.Contains(news, "wrote conflict markers for hunk 1 of calc.go") {
		t.Errorf("news = %q", news)
	}
	fx.undo(led)
	if got := fx.disk("calc.go"); got != typed {
		t.Errorf("after the undo:\n%s\nwant the user's text:\n%s", got, typed)
	}
}

// One edit of the user between two hunks touches both: their regions
// are one, and run replaces it whole with the run's lines.
func TestKeepRunOverOneRegionOfTwoHunks(t *testing.T) {
	for _, c := range []struct {
		how  Resolution
		want string
	}{
		{ResolveRun, strings.NewReplacer("return 1", "return 10", "return 2", "return 20").Replace(calc)},
		{ResolveBoth, strings.Replace(calc, "func A() int { return 1 }\n\nfunc B() int { return 2 }\n",
			"func A() int { return 1 }\n// mine\nfunc B() int { return 2 }\nfunc A() int { return 10 }\n\nfunc B() int { return 20 }\n", 1)},
		{ResolveTheirs, strings.Replace(calc, "return 1 }\n\n", "return 1 }\n// mine\n", 1)},
	} {
		t.Run(string(c.how), func(t *testing.T) {
			fx := newFixture(t, map[string]string{"calc.go": calc})
			fx.edit(fx.view, "calc.go", "return 1", "return 10")
			fx.edit(fx.view, "calc.go", "return 2", "return 20")
			writeFile(t, fx.root, "calc.go", strings.Replace(calc, "return 1 }\n\n", "return 1 }\n// mine\n", 1))
			res := fx.keepAs(context.Background(), c.how)
			if len(res.Kept) != 2 || len(res.Resolved) != 2 || len(res.Left) != 0 {
				t.Fatalf("keep = %+v", res)
			}
			if got := fx.disk("calc.go"); got != c.want {
				t.Errorf("calc.go:\n%s\nwant:\n%s", got, c.want)
			}
			if n := len(fx.set.Files()); n != 0 {
				t.Errorf("%d files pending, want none", n)
			}
		})
	}
}

// A file the run created and the user made too: both and markers leave
// it, naming theirs and run; run writes the run's; theirs keeps the
// user's and drops the run's.
func TestKeepCreatedClash(t *testing.T) {
	fx := newFixture(t, map[string]string{})
	for _, rel := range []string{"a.txt", "b.txt"} {
		p := fx.path(rel)
		if _, err := fx.view.Apply(context.Background(), tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: "run\n"}}, After: []byte("run\n")}); err != nil {
			t.Fatal(err)
		}
		writeFile(t, fx.root, rel, "mine\n")
	}
	res := fx.keepAs(context.Background(), ResolveBoth)
	if len(res.Kept) != 0 || len(res.Left) != 2 || !strings.Contains(res.Left[0].Reason, "resolve this with theirs") || !strings.Contains(res.Left[0].Reason, "or run (write the run's whole file over it)") {
		t.Fatalf("both over a created clash = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveRun, "a.txt"); len(res.Resolved) != 1 {
		t.Fatalf("run = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveTheirs, "b.txt"); len(res.Resolved) != 1 {
		t.Fatalf("theirs = %+v", res)
	}
	if a, b := fx.disk("a.txt"), fx.disk("b.txt"); a != "run\n" || b != "mine\n" {
		t.Errorf("a.txt = %q (want the run's), b.txt = %q (want the user's)", a, b)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Errorf("%d files pending, want none", n)
	}
	if news := fx.set.TakeNews(); !strings.Contains(news, "took the run's the new file a.txt") || !strings.Contains(news, "kept their own text over the new file b.txt") {
		t.Errorf("news = %q", news)
	}
}

// A command deleted files the user changed since: run deletes, theirs
// keeps the user's file and drops the deletion.
func TestKeepDeletionOverTheUsersEdit(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"old.txt": "old\n", "keep.txt": "keep\n"})
	fx.exec("rm old.txt keep.txt", true)
	writeFile(t, fx.root, "old.txt", "old\nmine\n")
	writeFile(t, fx.root, "keep.txt", "keep\nmine\n")
	if res := fx.keepAs(context.Background(), ResolveMarkers); len(res.Left) != 2 || !strings.Contains(res.Left[0].Reason, "or run (delete the file)") {
		t.Fatalf("markers over deletions = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveRun, "old.txt"); len(res.Resolved) != 1 {
		t.Fatalf("run = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveTheirs, "keep.txt"); len(res.Resolved) != 1 {
		t.Fatalf("theirs = %+v", res)
	}
	if old, keep := fx.disk("old.txt"), fx.disk("keep.txt"); !strings.HasPrefix(old, "<") || keep != "keep\nmine\n" {
		t.Errorf("old.txt = %q (want deleted), keep.txt = %q (want the user's)", old, keep)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Errorf("%d files pending, want none", n)
	}
}

func TestParseResolution(t *testing.T) {
	for _, name := range []string{"", "both", "theirs", "run", "markers"} {
		if r, err := ParseResolution(name); err != nil || string(r) != name {
			t.Errorf("ParseResolution(%q) = %q, %v", name, r, err)
		}
	}
	if _, err := ParseResolution("mine"); err == nil || !strings.Contains(err.Error(), `"mine"`) || !strings.Contains(err.Error(), "both, theirs, run or markers") {
		t.Errorf("ParseResolution(mine) = %v", err)
	}
}

// Whole-file items (a binary here) resolve as theirs or run only.
func TestKeepWholeItemConflicts(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.bin": "a\x00", "b.bin": "b\x00"})
	fx.exec(`printf 'run\000' >> a.bin && printf 'run\000' >> b.bin`, true)
	writeFile(t, fx.root, "a.bin", "mine\x00")
	writeFile(t, fx.root, "b.bin", "mine\x00")
	if f := fileNamed(t, fx.set.Files(), "a.bin"); f.Whole == nil {
		t.Fatalf("a.bin is not a whole item: %+v", f)
	}
	if res := fx.keepAs(context.Background(), ResolveBoth); len(res.Left) != 2 || !strings.Contains(res.Left[0].Reason, "both applies only to text hunks") {
		t.Fatalf("both over whole items = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveRun, "a.bin"); len(res.Resolved) != 1 || len(res.Left) != 0 {
		t.Fatalf("run = %+v", res)
	}
	if res := fx.keepAs(context.Background(), ResolveTheirs, "b.bin"); len(res.Resolved) != 1 || len(res.Left) != 0 {
		t.Fatalf("theirs = %+v", res)
	}
	if a, b := fx.disk("a.bin"), fx.disk("b.bin"); a != "a\x00run\x00" || b != "mine\x00" {
		t.Errorf("a.bin = %q (want the run's), b.bin = %q (want the user's)", a, b)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Errorf("%d files pending, want none", n)
	}
}
