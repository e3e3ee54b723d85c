package snapshot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// BenchmarkExecChangeScan measures what a write command adds to exec on
// a 20,000-file workspace with a .gitignore: one scan; the before and
// after scans with their diff (target: ≤ 150 ms); the same with the
// before scan keeping every file's content for the run's undo; and, as
// peers over the same tree in the same run, find printing size, mtime
// and inode, and git status. cpu-ns/op is the steadier figure on a
// loaded machine.
func BenchmarkExecChangeScan(b *testing.B) {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.tmp\nbuild/\n"), 0o644)
	for d := range 200 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d/20), fmt.Sprintf("sub%02d", d%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		b.Fatal(err)
	}
	base := g.Roots()[0]
	roots := []guard.Path{{Abs: base, Root: base, Rel: "."}}
	rel := func(p string) string { r, _ := filepath.Rel(base, p); return filepath.ToSlash(r) }
	var gitOnce sync.Once // the tree is a repository once, for every -count
	if n := Take(b.Context(), roots, nil).len(); n != 20001 {
		b.Fatalf("scan saw %d files, want 20001", n)
	}
	b.Run("scan", func(b *testing.B) {
		loop(b, func() { Take(b.Context(), roots, nil) })
	})
	b.Run("before+after+diff", func(b *testing.B) {
		loop(b, func() {
			before := Take(b.Context(), roots, nil)
			after := Take(b.Context(), roots, nil)
			if d := Diff(before, after, rel); len(d) != 0 {
				b.Fatalf("unchanged tree reported %d changes", len(d))
			}
		})
	})
	b.Run("copies+after+diff", func(b *testing.B) {
		loop(b, func() {
			before := Take(b.Context(), roots, NewBudget())
			after := Take(b.Context(), roots, nil)
			if d := Diff(before, after, rel); len(d) != 0 {
				b.Fatalf("unchanged tree reported %d changes", len(d))
			}
		})
	})
	b.Run("peer=find", func(b *testing.B) {
		peer(b, root, "find", ".", "-printf", "%s %T@ %i\n")
	})
	b.Run("peer=git-status", func(b *testing.B) {
		testenv.NeedsTool(b, "git", "the git status peer", "apt-get install git")
		gitOnce.Do(func() {
			for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "tree"}} {
				if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v %s", args, err, out)
				}
			}
		})
		peer(b, root, "git", "status", "--porcelain")
	})
}

// loop runs body b.N times and reports, beside the wall time, the CPU
// time per operation (cpu-ns/op), which the load of a shared machine
// disturbs far less.
func loop(b *testing.B, body func()) {
	start := testenv.CPUTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if used := testenv.CPUTime() - start; used > 0 && n > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}

// peer runs a command over dir once per iteration, with its CPU time
// (the child's) as cpu-ns/op.
func peer(b *testing.B, dir, name string, args ...string) {
	testenv.NeedsTool(b, name, "the "+name+" peer", "apt-get install "+name)
	var cpu int64
	n := 0
	for b.Loop() {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			testenv.Needs(b, false, fmt.Sprintf("%s that runs %v", name, args), err.Error(), "the GNU "+name+" of Debian's packages")
		}
		cpu += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Nanoseconds()
		n++
	}
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
}

// len is the number of files the scan met.
func (s Scan) len() int {
	n := 0
	for _, r := range s.roots {
		n += len(r.files)
	}
	return n
}
