package guard

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// layout builds:
//
//	base/proj/            the root
//	  a.txt, sub/b.txt, .catbuddy/settings.json
//	  link_* symlinks (see below), fifo, sock
//	base/proj2/x.txt      the prefix trap
//	base/outside/secret.txt
func layout(t testing.TB) (base, proj string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj = filepath.Join(base, "proj")
	for _, f := range []string{"proj/a.txt", "proj/sub/b.txt", "proj/.catbuddy/settings.json", "proj2/x.txt", "outside/secret.txt"} {
		mustWrite(t, filepath.Join(base, f), "x")
	}
	links := map[string]string{
		"link_out_file":     "../outside/secret.txt",
		"link_out_abs":      filepath.Join(base, "outside"),
		"link_out_dir":      "../outside",
		"link_cb":           ".catbuddy",
		"link_cb_file":      ".catbuddy/settings.json",
		"sub/link_cb_up":    "../.catbuddy",
		"loop1":             "loop2",
		"loop2":             "loop1",
		"selfloop":          "selfloop",
		"link_in":           "sub",
		"link_in_abs":       filepath.Join(proj, "sub", "b.txt"),
		"dangling_out":      "../outside/new.txt",
		"dangling_in":       "sub/new.txt",
		"link_proj2":        "../proj2",
		"link_dotdot_out":   "sub/../../outside",
		"sub/link_to_root":  "..",
		"link_missing_back": "missing/../../outside/secret.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(proj, "link_fifo")); err != nil {
		t.Fatal(err)
	}
	return base, proj
}

func mustWrite(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveProject(t *testing.T) {
	base, proj := layout(t)
	// A unix socket needs a short path; put it in the project by name.
	sock := filepath.Join(proj, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		t.Cleanup(func() { l.Close() })
	} else {
		t.Fatalf("listen on %s: %v", sock, err)
	}
	g, err := New([]string{proj}, ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	ok := []struct{ in, rel string }{
		{"a.txt", "a.txt"},
		{"./a.txt", "a.txt"},
		{".", "."},
		{"sub/../a.txt", "a.txt"},
		{filepath.Join(proj, "sub", "b.txt"), "sub/b.txt"},
		{"link_in/b.txt", "sub/b.txt"},
		{"link_in_abs", "sub/b.txt"},
		{"dangling_in", "sub/new.txt"},
		{"new/dir/file.go", "new/dir/file.go"},
		{"sub/link_to_root/a.txt", "a.txt"},
		{"../proj/a.txt", "a.txt"},
		{"a .txt", "a .txt"},
	}
	for _, c := range ok {
		p, err := g.Resolve(c.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", c.in, err)
			continue
		}
		if p.Rel != c.rel || p.Root != proj || p.Abs != filepath.Join(proj, filepath.FromSlash(c.rel)) {
			t.Errorf("Resolve(%q) = %+v, want Rel %q under %s", c.in, p, c.rel, proj)
		}
	}
	denied := []struct{ in, msg string }{
		{"", `Access denied: "" is empty`},
		{"  ", `Access denied: "  " is empty`},
		{"a\x00b", `Access denied: "a\x00b" contains a control character`},
		{"a\nb", `Access denied: "a\nb" contains a control character`},
		{"../x", `Access denied: "../x" is outside the workspace`},
		{"../outside/secret.txt", `Access denied: "../outside/secret.txt" is outside the workspace`},
		{"/etc/passwd", `Access denied: "/etc/passwd" is outside the workspace`},
		{"/", `Access denied: "/" is outside the workspace`},
		{filepath.Join(base, "proj2", "x.txt"), "is outside the workspace"},
		{"../proj2/x.txt", "is outside the workspace"},
		{"link_proj2/x.txt", "is outside the workspace"},
		{"link_out_file", `Access denied: "link_out_file" is outside the workspace`},
		{"link_out_abs/secret.txt", "is outside the workspace"},
		{"link_out_dir/secret.txt", "is outside the workspace"},
		{"link_out_dir/new.txt", "is outside the workspace"},
		{"link_dotdot_out/secret.txt", "is outside the workspace"},
		{"link_missing_back", "is outside the workspace"},
		{"dangling_out", "is outside the workspace"},
		{".catbuddy", `Access denied: ".catbuddy" is inside .catbuddy/, which holds cb-ls's own state`},
		{".catbuddy/settings.json", "inside .catbuddy/"},
		{"./.catbuddy/settings.json", "inside .catbuddy/"},
		{"sub/../.catbuddy/settings.json", "inside .catbuddy/"},
		{".catbuddy/new/file", "inside .catbuddy/"},
		{".CatBuddy/settings.json", "inside .catbuddy/"},
		{filepath.Join(proj, ".catbuddy"), "inside .catbuddy/"},
		{"link_cb", "leads into .catbuddy/"},
		{"link_cb/settings.json", "leads into .catbuddy/"},
		{"link_cb_file", "leads into .catbuddy/"},
		{"sub/link_cb_up/settings.json", "leads into .catbuddy/"},
		{"loop1", "too many levels of symbolic links"},
		{"selfloop/x", "too many levels of symbolic links"},
		{"fifo", `Access denied: "fifo" is not a regular file or directory (a named pipe)`},
		{"link_fifo", "named pipe"},
		{"sock", "(a socket)"},
		{"a.txt/x", "a.txt is not a directory"},
	}
	for _, c := range denied {
		p, err := g.Resolve(c.in)
		if err == nil {
			t.Errorf("Resolve(%q) admitted %+v", c.in, p)
			continue
		}
		if !errors.Is(err, ErrDenied) {
			t.Errorf("Resolve(%q) error %v does not wrap ErrDenied", c.in, err)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Resolve(%q) = %q, want it to contain %q", c.in, err, c.msg)
		}
	}
}

func TestResolveDevice(t *testing.T) {
	_, proj := layout(t)
	dev := filepath.Join(proj, "null")
	if err := os.Symlink("/dev/null", dev); err != nil {
		t.Fatal(err)
	}
	// /dev/null is outside the root anyway; a root that holds a device
	// must refuse it by type.
	g, _ := New([]string{"/dev"}, ModeProject)
	if _, err := g.Resolve("null"); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("Resolve(/dev/null) = %v, want a device refusal", err)
	}
	g2, _ := New([]string{proj}, ModeProject)
	if _, err := g2.Resolve("null"); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("link to /dev/null = %v, want outside", err)
	}
}

func TestRootThroughSymlink(t *testing.T) {
	base, proj := layout(t)
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(proj, alias); err != nil {
		t.Fatal(err)
	}
	g, err := New([]string{alias}, ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Roots(); len(got) != 1 || got[0] != proj {
		t.Fatalf("Roots() = %v, want [%s]", got, proj)
	}
	for _, in := range []string{filepath.Join(alias, "a.txt"), filepath.Join(proj, "a.txt"), "a.txt"} {
		if p, err := g.Resolve(in); err != nil || p.Rel != "a.txt" {
			t.Errorf("Resolve(%q) = %+v, %v", in, p, err)
		}
	}
	if _, err := g.Resolve(filepath.Join(alias, ".catbuddy", "settings.json")); err == nil {
		t.Error("alias/.catbuddy admitted")
	}
}

func TestMultipleRootsAndSetRoots(t *testing.T) {
	base, proj := layout(t)
	proj2 := filepath.Join(base, "proj2")
	g, err := New([]string{proj, proj2}, ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Resolve(filepath.Join(proj2, "x.txt"))
	if err != nil || p.Root != proj2 || p.Rel != "x.txt" {
		t.Fatalf("second root: %+v, %v", p, err)
	}
	if p, err := g.Resolve("x.txt"); err != nil || p.Root != proj {
		t.Errorf("relative paths must resolve against the primary root: %+v, %v", p, err)
	}
	if p, err := g.Resolve("link_proj2/x.txt"); err != nil || p.Root != proj2 {
		t.Errorf("a link from one root into another is inside the workspace: %+v, %v", p, err)
	}
	if err := g.SetRoots([]string{proj2}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Resolve(filepath.Join(proj, "a.txt")); err == nil {
		t.Error("removed root still admitted")
	}
	if g.WorkRoot() != proj2 {
		t.Errorf("WorkRoot() = %s, want %s", g.WorkRoot(), proj2)
	}
	if err := g.SetRoots(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Resolve("a.txt"); err == nil || !strings.Contains(err.Error(), "no workspace folder") {
		t.Errorf("no roots: %v", err)
	}
}

func TestNestedRootsPickDeepest(t *testing.T) {
	_, proj := layout(t)
	sub := filepath.Join(proj, "sub")
	g, _ := New([]string{proj, sub}, ModeProject)
	p, err := g.Resolve(filepath.Join(sub, "b.txt"))
	if err != nil || p.Root != sub || p.Rel != "b.txt" {
		t.Errorf("got %+v, %v; want Root %s", p, err, sub)
	}
}

func TestInternalMode(t *testing.T) {
	_, proj := layout(t)
	g, err := New([]string{proj}, ModeInternal)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(proj, ".catbuddy", "workspace")
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		t.Fatalf("internal workspace not created: %v", err)
	}
	if g.WorkRoot() != ws {
		t.Errorf("WorkRoot() = %s, want %s", g.WorkRoot(), ws)
	}
	p, err := g.Resolve("notes/todo.md")
	if err != nil || p.Root != ws || p.Rel != "notes/todo.md" {
		t.Errorf("internal relative path: %+v, %v", p, err)
	}
	for _, in := range []string{"../settings.json", filepath.Join(proj, "a.txt"), "../../a.txt"} {
		if _, err := g.Resolve(in); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("internal mode Resolve(%q) = %v, want outside", in, err)
		}
	}
}

func TestAutoMode(t *testing.T) {
	base, proj := layout(t)
	home := filepath.Join(base, "home", "user")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	g, _ := New([]string{proj}, ModeAuto)
	if g.Mode() != ModeProject {
		t.Errorf("auto on a project = %v, want project", g.Mode())
	}
	g, _ = New([]string{home}, ModeAuto)
	if g.Mode() != ModeInternal {
		t.Errorf("auto on $HOME = %v, want internal", g.Mode())
	}
	if !IsSensitive("/") || !IsSensitive(home) || !IsSensitive(filepath.Dir(home)) {
		t.Error("/, $HOME and its parent must be sensitive")
	}
	if IsSensitive(proj) || IsSensitive(filepath.Join(home, "src")) {
		t.Error("a project below $HOME is not sensitive")
	}
	g, _ = New([]string{proj, home}, ModeAuto)
	if g.Mode() != ModeInternal {
		t.Error("any sensitive root makes auto internal")
	}
}

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "project": ModeProject, "internal": ModeInternal} {
		if got, err := ParseMode(s); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, got, err)
		}
		if s != "" && want.String() != s {
			t.Errorf("%v.String() = %q", want, want.String())
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Error("ParseMode(yolo) succeeded")
	}
}

func TestWithinIsComponentWise(t *testing.T) {
	cases := []struct {
		root, p string
		rel     string
		ok      bool
	}{
		{"/w/proj", "/w/proj", ".", true},
		{"/w/proj", "/w/proj/a", "a", true},
		{"/w/proj", "/w/proj2", "", false},
		{"/w/proj", "/w/proj2/a", "", false},
		{"/w/proj", "/w", "", false},
		{"/", "/etc", "etc", true},
	}
	for _, c := range cases {
		rel, ok := within(c.root, c.p)
		if rel != c.rel || ok != c.ok {
			t.Errorf("within(%q, %q) = %q, %v", c.root, c.p, rel, ok)
		}
	}
}

func TestConcurrentSetRoots(t *testing.T) {
	base, proj := layout(t)
	proj2 := filepath.Join(base, "proj2")
	g, _ := New([]string{proj}, ModeProject)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			roots := []string{proj}
			if i%2 == 1 {
				roots = []string{proj2}
			}
			if err := g.SetRoots(roots); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 500 {
		if p, err := g.Resolve("../outside/secret.txt"); err == nil {
			t.Fatalf("admitted %+v", p)
		}
		if p, err := g.Resolve("a.txt"); err == nil && p.Root != proj && p.Root != proj2 {
			t.Fatalf("bad root %+v", p)
		}
	}
	close(stop)
	wg.Wait()
}

// SetMode applies a new mode to every later call, as New would have.
func TestSetMode(t *testing.T) {
	_, proj := layout(t)
	g, err := New([]string{proj}, ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Resolve("a.txt"); err != nil {
		t.Fatalf("project mode: %v", err)
	}
	if err := g.SetMode(ModeInternal); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(proj, ".catbuddy", "workspace")
	if g.Mode() != ModeInternal || g.WorkRoot() != ws {
		t.Fatalf("after SetMode(internal): mode %v, work root %s", g.Mode(), g.WorkRoot())
	}
	if _, err := g.Resolve(filepath.Join(proj, "a.txt")); err == nil {
		t.Error("internal mode admitted a project file")
	}
	if err := g.SetMode(ModeAuto); err != nil {
		t.Fatal(err)
	}
	if g.Mode() != ModeProject || g.WorkRoot() != proj {
		t.Errorf("after SetMode(auto): mode %v, work root %s", g.Mode(), g.WorkRoot())
	}
}
