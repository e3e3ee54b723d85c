package changeset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// TestDecisionsKeepTheUsersWork is the matrix of what a discard (a
// reject) and a restart may never do to the user's files or to the
// pending state. Each case checks what must stay, and, as its positive
// control, that the decision did take effect.
func TestDecisionsKeepTheUsersWork(t *testing.T) {
	ctx := context.Background()
	discardAll := func(fx *fixture) {
		fx.t.Helper()
		if _, err := fx.set.Discard(Selection{}); err != nil {
			fx.t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		// run makes the run's changes and what the user does after;
		// decide is the decision; check looks at the result.
		run, decide func(fx *fixture)
		check       func(t *testing.T, fx *fixture)
	}{{
		name: "discard never reverts the user's typing",
		run: func(fx *fixture) {
			fx.edit(fx.view, "calc.go", "return 1", "return 10")
			writeFile(fx.t, fx.root, "calc.go", strings.Replace(calc, "return 4", "return 44", 1))
		},
		decide: discardAll,
		check: func(t *testing.T, fx *fixture) {
			if got := fx.disk("calc.go"); got != strings.Replace(calc, "return 4", "return 44", 1) {
				t.Errorf("calc.go = %q, want the user's typing", got)
			}
			// Control: the run's hunk is gone from its view and the set.
			if got := fx.read(fx.view, "calc.go"); strings.Contains(got, "return 10") || len(fx.set.Files()) != 0 {
				t.Errorf("the discarded hunk is still the run's: %q, %+v", got, fx.set.Files())
			}
		},
	}, {
		name: "one run's discard never reverts another run's kept text",
		run: func(fx *fixture) {
			fx.edit(fx.view, "calc.go", "return 1", "return 10")
			if _, err := fx.set.Keep(ctx, Selection{}, tools.DiskWorkspace{}); err != nil {
				fx.t.Fatal(err)
			}
			other, err := fx.store.Begin("run-2", "second")
			if err != nil {
				fx.t.Fatal(err)
			}
			fx.set, fx.view = other, other.Workspace(tools.DiskWorkspace{})
			fx.edit(fx.view, "calc.go", "return 4", "return 40")
		},
		decide: discardAll,
		check: func(t *testing.T, fx *fixture) {
			if got := fx.disk("calc.go"); got != strings.Replace(calc, "return 1", "return 10", 1) {
				t.Errorf("calc.go = %q, want the first run's kept text alone", got)
			}
			if got := fx.read(fx.view, "calc.go"); strings.Contains(got, "return 40") || len(fx.set.Files()) != 0 {
				t.Errorf("the second run's discarded hunk is still pending: %q", got)
			}
		},
	}, {
		name: "a discard of a created file removes only the layer's copy",
		run: func(fx *fixture) {
			p := fx.path("new.txt")
			if _, err := fx.view.Apply(ctx, tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: "run's\n"}}, After: []byte("run's\n")}); err != nil {
				fx.t.Fatal(err)
			}
			writeFile(fx.t, fx.root, "new.txt", "mine\n") // the user makes one too
		},
		decide: discardAll,
		check: func(t *testing.T, fx *fixture) {
			if got := fx.disk("new.txt"); got != "mine\n" {
				t.Errorf("new.txt = %q, want the user's own file", got)
			}
			if got := fx.read(fx.view, "new.txt"); got != "mine\n" || len(fx.set.Files()) != 0 {
				t.Errorf("the run still reads its own new.txt: %q", got)
			}
		},
	}, {
		name: "a discard of a deletion keeps the user's file",
		run: func(fx *fixture) {
			p := fx.path("old.txt")
			doc, err := fx.view.Read(ctx, p)
			if err != nil {
				fx.t.Fatal(err)
			}
			if _, err := fx.view.Apply(ctx, tools.Change{Path: p, Base: doc, Delete: true}); err != nil {
				fx.t.Fatal(err)
			}
			writeFile(fx.t, fx.root, "old.txt", "old\nmine\n")
		},
		decide: discardAll,
		check: func(t *testing.T, fx *fixture) {
			if got := fx.disk("old.txt"); got != "old\nmine\n" {
				t.Errorf("old.txt = %q, want the user's file", got)
			}
			if got := fx.read(fx.view, "old.txt"); got != "old\nmine\n" || len(fx.set.Files()) != 0 {
				t.Errorf("the deletion is still the run's: %q", got)
			}
		},
	}, {
		name: "a restart neither resurrects nor loses pending state",
		run: func(fx *fixture) {
			fx.edit(fx.view, "calc.go", "return 1", "return 10")
			fx.edit(fx.view, "notes.txt", "notes", "NOTES")
			fx.edit(fx.view, "old.txt", "old", "OLD")
			var notes, old File
			for _, f := range fx.set.Files() {
				switch f.Path.Rel {
				case "notes.txt":
					notes = f
				case "old.txt":
					old = f
				}
			}
			if _, err := fx.set.Keep(ctx, Selection{Files: []guard.Path{notes.Path}}, tools.DiskWorkspace{}); err != nil {
				fx.t.Fatal(err)
			}
			if _, err := fx.set.Discard(Selection{Files: []guard.Path{old.Path}}); err != nil {
				fx.t.Fatal(err)
			}
		},
		decide: func(fx *fixture) { fx.reopen() },
		check: func(t *testing.T, fx *fixture) {
			files := fx.set.Files()
			if len(files) != 1 || files[0].Path.Rel != "calc.go" || files[0].Kind != KindChanged {
				t.Fatalf("pending after the restart = %+v, want calc.go alone", files)
			}
			if fx.disk("notes.txt") != "NOTES\n" || fx.disk("old.txt") != "old\n" {
				t.Errorf("the restart changed decided files: notes.txt %q, old.txt %q", fx.disk("notes.txt"), fx.disk("old.txt"))
			}
			// Control: what is still pending keeps after the restart.
			if _, err := fx.set.Keep(ctx, Selection{}, tools.DiskWorkspace{}); err != nil {
				t.Fatal(err)
			}
			if got := fx.disk("calc.go"); got != strings.Replace(calc, "return 1", "return 10", 1) {
				t.Errorf("calc.go after keeping past the restart = %q", got)
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"calc.go": calc, "old.txt": "old\n", "notes.txt": "notes\n"})
			tc.run(fx)
			if len(fx.set.Files()) == 0 {
				t.Fatal("the run left nothing pending to decide")
			}
			tc.decide(fx)
			tc.check(t, fx)
			if _, err := os.Stat(filepath.Join(fx.root, ".catbuddy")); !os.IsNotExist(err) {
				t.Errorf("a decision wrote into the project: %v", err)
			}
		})
	}
}
