package guard

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenStateDirFollowsNoLink: a ".catbuddy" (or "sessions") that is a
// symlink, to a place outside the workspace or inside it, is refused and
// nothing is created through it; a missing one is created private.
func TestOpenStateDirFollowsNoLink(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, root, outside string)
		refuse bool
	}{
		{"missing", func(*testing.T, string, string) {}, false},
		{"state dir links outside", func(t *testing.T, root, outside string) {
			must(t, os.Symlink(outside, filepath.Join(root, StateDir)))
		}, true},
		{"state dir links inside", func(t *testing.T, root, _ string) {
			must(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
			must(t, os.Symlink("sub", filepath.Join(root, StateDir)))
		}, true},
		{"sessions links outside", func(t *testing.T, root, outside string) {
			must(t, os.Mkdir(filepath.Join(root, StateDir), 0o700))
			must(t, os.Symlink(outside, filepath.Join(root, StateDir, "sessions")))
		}, true},
		{"state dir is a file", func(t *testing.T, root, _ string) {
			must(t, os.WriteFile(filepath.Join(root, StateDir), nil, 0o644))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			tc.setup(t, root, outside)
			d, err := OpenStateDir(root, "sessions")
			if tc.refuse {
				if err == nil {
					d.Close()
					t.Fatal("opened a state directory through a symlink")
				}
				if !errors.Is(err, ErrStateDirLink) {
					t.Errorf("error %v does not say why", err)
				}
				if ents, _ := os.ReadDir(outside); len(ents) != 0 {
					t.Errorf("something was created outside: %v", ents)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			fi, err := os.Lstat(filepath.Join(root, StateDir, "sessions"))
			if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("sessions dir: %v, %v; want a private directory", fi, err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestInternalModeCreatesNothingThroughALink: internal mode creates
// <root>/.catbuddy/workspace, but never through a ".catbuddy" symlink.
func TestInternalModeCreatesNothingThroughALink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(root, StateDir)))
	if _, err := New([]string{root}, ModeInternal); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("internal mode created %v outside the root", ents)
	}
}
