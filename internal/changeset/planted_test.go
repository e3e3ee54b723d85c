package changeset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/hostile"
)

// TestPlantedSetsAreNeverRead: a project that ships change sets in the
// old in-project place gets none of them listed, kept or discarded;
// the files they name outside the workspace stay as they are; the user
// is told once.
func TestPlantedSetsAreNeverRead(t *testing.T) {
	root := t.TempDir()
	victims := hostile.PlantOldSets(t, root)
	before := map[string]string{}
	for _, v := range victims {
		b, _ := os.ReadFile(v)
		before[v] = string(b)
	}
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Pending(); len(p) != 0 {
		t.Fatalf("planted sets are listed as pending: %s (%s)", p[0].RunID(), p[0].Title())
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		if _, ok := st.Get(id); ok {
			t.Errorf("the planted run %s is known", id)
		}
	}
	msgs := st.Legacy()
	if len(msgs) != 1 || !strings.Contains(msgs[0], ".catbuddy/runs/ and .catbuddy/sessions/") || !strings.Contains(msgs[0], "never reads") {
		t.Errorf("Legacy = %q, want one message naming both directories", msgs)
	}
	if again := st.Legacy(); len(again) != 0 {
		t.Errorf("told twice: %q", again)
	}
	for _, v := range victims {
		if b, err := os.ReadFile(v); err != nil || string(b) != before[v] {
			t.Errorf("%s = %q, %v; want it untouched", v, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".catbuddy", "runs", "r1", "manifest.json")); err != nil {
		t.Errorf("the planted files were removed: %v", err)
	}
}

// TestStoredRecordsOutsideTheFolderAreDropped: even the user's own
// manifest, if it names a path that leads out of the folder (a bug, or
// a hand edit), never makes a keep or a discard reach it.
func TestStoredRecordsOutsideTheFolderAreDropped(t *testing.T) {
	for _, rel := range []string{"../x", "/etc/passwd", "a/../../x", "", ".", "a//b", `a\..\..\x`} {
		if localRel(rel) {
			t.Errorf("localRel(%q) = true", rel)
		}
	}
	for _, rel := range []string{"a", "a/b.go", ".github/workflows/ci.yml", "..a"} {
		if !localRel(rel) {
			t.Errorf("localRel(%q) = false", rel)
		}
	}
	m, dropped, err := parseManifest([]byte(`{"runId":"r","files":{"../../v.txt":{"existed":true},"ok.go":{"existed":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0] != "../../v.txt" || len(m.Files) != 1 || m.Files["ok.go"] == nil {
		t.Errorf("dropped %q, kept %v", dropped, m.Files)
	}
}
