package changeset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// BenchmarkFirstExecStateDir: a run's first writing command (the run
// directory made, the layer mounted, the command run, its upper
// scanned), with the layer in the user's state directory against the
// same with the layer inside the project, where cb-ls kept it before
// (<folder>/.catbuddy). The two alternate, one each per iteration and
// each first in every other one, so they see the same load; the medians
// and their ratio are reported
// (target ≤ 1.05).
func BenchmarkFirstExecStateDir(b *testing.B) {
	needsOverlay(b)
	files := map[string]string{"calc.go": calc}
	for i := range 200 {
		files[fmt.Sprintf("pkg%02d/f%03d.go", i%10, i)] = fmt.Sprintf("package pkg\n\nconst X%d = %d\n", i, i)
	}
	first := func(inProject bool, i int) time.Duration {
		fx := newFixture(b, files)
		base := fx.store.base
		if inProject {
			base = filepath.Join(fx.root, guard.StateDir)
		}
		st, err := OpenIn(base, fx.g, nil)
		if err != nil {
			b.Fatal(err)
		}
		fx.store = st
		if fx.set, err = st.Begin(fmt.Sprintf("run-%d", i), "bench"); err != nil {
			b.Fatal(err)
		}
		fx.view = fx.set.Workspace(tools.DiskWorkspace{})
		start := time.Now()
		out := fx.exec("echo made > gen.txt", true)
		d := time.Since(start)
		if !strings.Contains(out, "gen.txt") {
			b.Fatalf("the command's change is not reported:\n%s", out)
		}
		return d
	}
	var state, project []time.Duration
	i := 0
	for b.Loop() {
		// Which goes first alternates too: the first of a pair may pay
		// for what the second then finds warm.
		if i%2 == 0 {
			state = append(state, first(false, i))
			project = append(project, first(true, i))
		} else {
			project = append(project, first(true, i))
			state = append(state, first(false, i))
		}
		i++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	s, p := median(state), median(project)
	b.ReportMetric(ms(s), "state-median-ms")
	b.ReportMetric(ms(p), "project-median-ms")
	b.ReportMetric(float64(s)/float64(p), "ratio")
}

// BenchmarkList200000: what `cb-ls changes` does before it prints, on a
// run whose command left 200,000 files pending: the store opened as a
// new process opens it (the manifest read, the upper directory
// scanned) and the files listed. Reported: the median time (target
// ≤ 5 s) and the process's peak resident memory, which must stay
// bounded (the files' contents are never all held at once).
func BenchmarkList200000(b *testing.B) {
	needsOverlay(b)
	fx := newFixture(b, map[string]string{"go.mod": "module m\n"})
	set := fx.set
	f, err := func() (*folder, error) {
		set.mu.Lock()
		defer set.mu.Unlock()
		return set.folderFor(fx.root)
	}()
	if err != nil {
		b.Fatal(err)
	}
	// As a command over the layer writes them: straight into the upper
	// directory, in 1,000 directories.
	const n = 200000
	for i := range n {
		p := filepath.Join(f.layer.Upper, "gen", fmt.Sprintf("d%03d", i%1000), fmt.Sprintf("f%06d.txt", i))
		if i < 1000 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte("generated\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	l := set.Layer(tools.DiskWorkspace{})
	if _, err := l.Prepare(ctx, []string{fx.root}); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Collect(ctx); err != nil {
		b.Fatal(err)
	}
	var times, cpus []time.Duration
	for b.Loop() {
		start, cpu := time.Now(), testenv.CPUTime()
		st, err := Open(fx.g, nil)
		if err != nil {
			b.Fatal(err)
		}
		got, ok := st.Get("run-1")
		if !ok {
			b.Fatal("the set was not found again")
		}
		count := 0
		for _, file := range got.Files() {
			if file.Group != nil {
				count += file.Group.Count
			} else {
				count++
			}
		}
		times = append(times, time.Since(start))
		cpus = append(cpus, testenv.CPUTime()-cpu)
		if count != n {
			b.Fatalf("%d files listed, want %d", count, n)
		}
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(median(times).Milliseconds()), "median-ms")
	b.ReportMetric(float64(median(cpus).Milliseconds()), "cpu-median-ms")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
