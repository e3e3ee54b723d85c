package guard

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// FuzzResolve checks the guard's one promise: whatever the input, an
// admitted path lies inside the root (checked independently with
// filepath.EvalSymlinks on its nearest existing ancestor), never inside
// .catbuddy/, and opening it through os.Root never reaches a file
// outside. Run: go test ./guard -fuzz FuzzResolve
func FuzzResolve(f *testing.F) {
	seeds := []string{
		"a.txt", "../outside/secret.txt", "link_out_file", "link_out_dir/secret.txt",
		"link_cb/settings.json", "sub/../.catbuddy", "loop1", "fifo", "link_in/../a.txt",
		"link_dotdot_out/secret.txt", "link_missing_back", "sub/link_to_root/../outside",
		"./././a.txt", "a.txt/..", "/", "//etc//passwd", "link_in/../../outside", "new/../../x",
		"sub/link_cb_up/../../outside", "dangling_out", "..", ".catbuddy/../a.txt",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	base, proj := layout(f)
	secret, err := os.ReadFile(filepath.Join(base, "outside", "secret.txt"))
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside", "secret.txt"), append(secret, "SECRET"...), 0o644); err != nil {
		f.Fatal(err)
	}
	g, err := New([]string{proj}, ModeProject)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := g.Resolve(in)
		if err != nil {
			return
		}
		if p.Root != proj {
			t.Fatalf("Resolve(%q) root %s", in, p.Root)
		}
		rel, ok := within(proj, p.Abs)
		if !ok || rel != p.Rel {
			t.Fatalf("Resolve(%q) = %+v: not inside %s", in, p, proj)
		}
		if hasStateDir(rel) {
			t.Fatalf("Resolve(%q) = %+v: inside .catbuddy", in, p)
		}
		// Independent check: the nearest existing ancestor's real path.
		anc := p.Abs
		for {
			if _, err := os.Lstat(anc); err == nil {
				break
			}
			anc = filepath.Dir(anc)
		}
		real, err := filepath.EvalSymlinks(anc)
		if err == nil {
			if _, ok := within(proj, real); !ok {
				t.Fatalf("Resolve(%q) = %+v, whose existing part is really %s", in, p, real)
			}
		}
		r, err := os.OpenRoot(p.Root)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		fh, err := r.OpenFile(filepath.FromSlash(p.Rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		defer fh.Close()
		if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
			b, _ := io.ReadAll(io.LimitReader(fh, 1<<16))
			if strings.Contains(string(b), "SECRET") {
				t.Fatalf("Resolve(%q) = %+v opened the file outside", in, p)
			}
		}
	})
}
