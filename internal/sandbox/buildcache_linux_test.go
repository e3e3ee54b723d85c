package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceBuildEnv: each workspace gets build directories of its
// own under the private cache, the same through a symlink, another for
// another checkout of the same name.
func TestWorkspaceBuildEnv(t *testing.T) {
	cache, base := t.TempDir(), t.TempDir()
	a, b := filepath.Join(base, "a", "proj"), filepath.Join(base, "b", "proj")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	envA, envB, envLink := workspaceBuildEnv(cache, a), workspaceBuildEnv(cache, b), workspaceBuildEnv(cache, link)
	for _, k := range []string{"CARGO_TARGET_DIR", "PYTHONPYCACHEPREFIX"} {
		if !strings.HasPrefix(envA[k], filepath.Join(cache, "workspaces", "proj-")) {
			t.Errorf("%s = %q, want it under %s", k, envA[k], filepath.Join(cache, "workspaces"))
		}
		if envA[k] == envB[k] {
			t.Errorf("two checkouts share %s = %q", k, envA[k])
		}
		if envA[k] != envLink[k] {
			t.Errorf("%s through a symlink = %q, want %q", k, envLink[k], envA[k])
		}
	}
	if fi, err := os.Stat(filepath.Dir(envA["CARGO_TARGET_DIR"])); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the workspace's directory: %v, %v; want it private (0700)", fi, err)
	}
	if want := "-o cache_dir='" + filepath.Dir(envA["CARGO_TARGET_DIR"]) + "/pytest'"; envA["PYTEST_ADDOPTS"] != want {
		t.Errorf("PYTEST_ADDOPTS = %q, want %q", envA["PYTEST_ADDOPTS"], want)
	}
	if got := shellQuote("/a b/it's"); got != `'/a b/it'"'"'s'` {
		t.Errorf("shellQuote = %s", got)
	}
	if got := workspaceKey("/x/" + strings.Repeat("é", 30) + " y"); strings.ContainsAny(got, "é /") || len(got) > 40+1+16 {
		t.Errorf("workspaceKey = %q", got)
	}
}
