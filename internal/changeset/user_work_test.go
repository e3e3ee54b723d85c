package changeset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
