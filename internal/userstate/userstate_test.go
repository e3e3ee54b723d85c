package userstate_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestBase(t *testing.T) {
	if got := userstate.Base(env(map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/h"})); got != filepath.Join("/x/state", "catbuddy") {
		t.Errorf("with XDG_STATE_HOME: %s", got)
	}
	got := userstate.Base(env(map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}))
	if runtime.GOOS == "linux" && got != "/h/.local/state/catbuddy" {
		t.Errorf("a relative XDG_STATE_HOME is ignored: %s", got)
	}
	if runtime.GOOS == "darwin" && got != "/h/Library/Application Support/catbuddy" {
		t.Errorf("macOS: %s", got)
	}
}

func TestKeyIsPerPath(t *testing.T) {
	a, b := userstate.Key("/home/u/src/proj"), userstate.Key("/home/u/other/proj")
	if a == b || !strings.HasPrefix(a, "proj-") || !strings.HasPrefix(b, "proj-") {
		t.Errorf("two checkouts named proj: %s and %s", a, b)
	}
	if k := userstate.Key("/x/\x1b[2J..evil name"); strings.ContainsAny(k, "\x1b[/ ") || strings.HasPrefix(k, ".") {
		t.Errorf("an unsafe name is kept in the key: %q", k)
	}
}

func TestOpenCreatesPrivateDirsOutsideTheProject(t *testing.T) {
	base, proj := filepath.Join(t.TempDir(), "state"), t.TempDir()
	f, err := userstate.For(base, proj)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Open("runs", "r1")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	for _, d := range []string{base, f.Dir, f.Path("runs", "r1")} {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", d, fi, err)
		}
	}
	if !strings.HasPrefix(f.Dir, base+string(os.PathSeparator)) {
		t.Errorf("%s is not in the state directory %s", f.Dir, base)
	}
	if ents, _ := os.ReadDir(proj); len(ents) != 0 {
		t.Errorf("the project holds %v", ents)
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, "folder.json"))
	if err != nil || !strings.Contains(string(b), proj) {
		t.Errorf("folder.json: %q %v", b, err)
	}
}

func TestOpenRefusesLinks(t *testing.T) {
	base, proj, elsewhere := filepath.Join(t.TempDir(), "state"), t.TempDir(), t.TempDir()
	f, err := userstate.For(base, proj)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := os.Symlink(elsewhere, f.Path("runs")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Open("runs", "r1"); !errors.Is(err, userstate.ErrLink) {
		t.Errorf("a link in the state directory: %v, want ErrLink", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("something was made through the link: %v", ents)
	}
}

func TestOpenRefusesAStateDirOthersWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	base, proj := filepath.Join(t.TempDir(), "state"), t.TempDir()
	if err := os.Mkdir(base, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	f, _ := userstate.For(base, proj)
	if _, err := f.Open(); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("a world-writable state directory: %v", err)
	}
	// The positive control: once private, it is used.
	if err := os.Chmod(base, 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

func TestAdoptFindsAMovedFolder(t *testing.T) {
	base, parent := filepath.Join(t.TempDir(), "state"), t.TempDir()
	old := filepath.Join(parent, "proj")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	f, _ := userstate.For(base, old)
	r, err := f.Open("runs", "r1")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	moved := filepath.Join(parent, "renamed")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	g, _ := userstate.For(base, moved)
	from, err := g.Adopt()
	if err != nil || from != old {
		t.Fatalf("Adopt = %q, %v; want %s", from, err, old)
	}
	if fi, err := os.Stat(g.Path("runs", "r1")); err != nil || !fi.IsDir() {
		t.Errorf("the run did not follow the folder: %v", err)
	}
	// A second folder at the old path is a new checkout: it takes nothing.
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	h, _ := userstate.For(base, old)
	if from, err := h.Adopt(); from != "" || err != nil {
		t.Errorf("a new folder at the old path took %q (%v)", from, err)
	}
}

func TestReadFileIsBoundedAndRegularOnly(t *testing.T) {
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(filepath.Join(dir, "small"), []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := userstate.ReadFile(r, "small", 10); err != nil || string(b) != "ok" {
		t.Errorf("small: %q %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 11), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := userstate.ReadFile(r, "big", 10); !errors.Is(err, userstate.ErrTooBig) {
		t.Errorf("big: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if _, err := userstate.ReadFile(r, "zero", 10); err == nil {
		t.Error("a link to /dev/zero was read")
	}
}
