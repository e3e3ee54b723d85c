//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// benchWorkspace is a workspace folder for the layer's benchmarks, with
// a layer in its .catbuddy/.
type benchWorkspace struct {
	root  string
	layer OverlayLayer
}

func newBenchWorkspace(b *testing.B) *benchWorkspace {
	b.Helper()
	info := Probe()
	testenv.NeedsSandbox(b, info.Overlay, "the copy-on-write layer", info.OverlayReason)
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	run := filepath.Join(root, guard.StateDir, "runs", "bench")
	return &benchWorkspace{root: root, layer: OverlayLayer{Lower: root, Upper: filepath.Join(run, "upper"), Work: filepath.Join(run, "work")}}
}

// run runs argv in the workspace as exec does (write policy, the
// environment allow-list), over the layer or not, and fails b unless it
// succeeds.
func (w *benchWorkspace) run(b *testing.B, overlay bool, argv ...string) {
	b.Helper()
	req := Request{Roots: []string{w.root}, WorkRoot: w.root, Dir: w.root, Argv: argv, Policy: Policy{WriteWorkspace: true},
		Environ: func(set map[string]string) []string {
			env, _ := shell.Environ(os.Environ(), []string{"GOFLAGS", "GOTOOLCHAIN"}, set)
			return env
		}}
	if overlay {
		req.Overlay = []OverlayLayer{w.layer}
	}
	r, err := Prepare(req)
	if err != nil {
		b.Fatal(err)
	}
	out := shell.NewOutput(1 << 20)
	res, err := shell.Run(context.Background(), r.Cmd, out, 10*time.Minute, 200*time.Millisecond)
	r.Cleanup()
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("%q: %+v %v\n%s", argv, res, err, out.String())
	}
}

// cpuWithChildren is the CPU time of this process and of its children
// that ended: the helper and the command are children.
func cpuWithChildren() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return testenv.CPUTime()
	}
	return testenv.CPUTime() + time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
}

// timings collects one duration per iteration and reports the median.
type timings []time.Duration

func (t timings) median() time.Duration {
	s := slices.Clone(t)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkLayerMountScan: a command over a layer whose upper directory
// holds 1,000 changed files (the helper mounts it, the command ends,
// the namespace takes it down), then the scan of that upper directory.
// The sub-benchmarks split the cost: the same command without the
// layer, the command over it, the scan alone, and both (the target:
// ≤ 20 ms). cpu-ns/op counts the helper's and the command's CPU too.
func BenchmarkLayerMountScan(b *testing.B) {
	w := newBenchWorkspace(b)
	for i := range 1000 {
		rel := fmt.Sprintf("pkg%02d/file%03d.go", i%20, i)
		writeTestFile(b, filepath.Join(w.root, rel), fmt.Sprintf("package pkg%02d\n\nconst C%d = %d\n", i%20, i, i))
		if err := w.layer.WriteFile(rel, fmt.Appendf(nil, "package pkg%02d\n\nconst C%d = %d // changed\n", i%20, i, -i), 0); err != nil {
			b.Fatal(err)
		}
	}
	scan := func(b *testing.B) {
		entries, err := ScanUpper(w.layer.Upper, w.layer.Lower)
		if err != nil || len(entries) != 1000 {
			b.Fatalf("scan: %d entries, %v", len(entries), err)
		}
	}
	for _, c := range []struct {
		name          string
		overlay, scan bool
	}{{"exec-true", false, false}, {"exec-true-over-layer", true, false}, {"scan-1000", false, true}, {"layer+scan", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			var times timings
			cpu0 := cpuWithChildren()
			for b.Loop() {
				start := time.Now()
				if c.overlay || !c.scan {
					w.run(b, c.overlay, "/bin/true")
				}
				if c.scan {
					scan(b)
				}
				times = append(times, time.Since(start))
			}
			b.ReportMetric(ms(times.median()), "median-ms")
			b.ReportMetric(float64(cpuWithChildren()-cpu0)/float64(len(times)), "cpu-ns/op")
		})
	}
}

// BenchmarkLayerGoTest: `go test ./...` in a project of 20,000 files
// (20 packages with tests, the rest data as real projects have it),
// sandboxed as today and over a layer holding a few pending edits,
// alternately, so that both see the same load. It reports both medians
// and their ratio (the target: ≤ 1.1). The user's Go build cache is
// warmed first, as it is after the user's own first build; the results
// are not cached (-count=1), so each call builds from the cache, links
// and runs the tests. bench/layer.sh runs it.
func BenchmarkLayerGoTest(b *testing.B) {
	gobin := testenv.NeedsTool(b, "go", "the go test benchmark", "install Go")
	w := newBenchWorkspace(b)
	writeTestFile(b, filepath.Join(w.root, "go.mod"), "module example.com/bench\n\ngo 1.22\n")
	files := 1
	for p := range 20 {
		dir := filepath.Join(w.root, fmt.Sprintf("pkg%02d", p))
		for f := range 5 {
			writeTestFile(b, filepath.Join(dir, fmt.Sprintf("f%d.go", f)), fmt.Sprintf("package pkg%02d\n\nfunc F%d(x int) int { return x*%d + %d }\n", p, f, f+1, p))
			files++
		}
		writeTestFile(b, filepath.Join(dir, "f_test.go"), fmt.Sprintf("package pkg%02d\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F0(1) != %d {\n\t\tt.Fatal(F0(1))\n\t}\n}\n", p, p+1))
		files++
	}
	for i := 0; files < 20000; i++ {
		writeTestFile(b, filepath.Join(w.root, fmt.Sprintf("pkg%02d", i%20), "testdata", fmt.Sprintf("d%02d", i%37), fmt.Sprintf("case%05d.txt", i)), fmt.Sprintf("input %d\n", i))
		files++
	}
	for p := range 5 {
		rel := fmt.Sprintf("pkg%02d/f1.go", p)
		if err := w.layer.WriteFile(rel, fmt.Appendf(nil, "package pkg%02d\n\n// F1 is pending.\nfunc F1(x int) int { return x }\n", p), 0); err != nil {
			b.Fatal(err)
		}
	}
	warm := exec.Command(gobin, "test", "./...")
	warm.Dir = w.root
	if out, err := warm.CombinedOutput(); err != nil {
		b.Fatalf("warming the build cache: %v\n%s", err, out)
	}
	argv := []string{gobin, "test", "-count=1", "./..."}
	var plain, layer timings
	for i := 0; b.Loop(); i++ {
		for _, over := range []bool{i%2 == 0, i%2 != 0} {
			start := time.Now()
			w.run(b, over, argv...)
			if over {
				layer = append(layer, time.Since(start))
			} else {
				plain = append(plain, time.Since(start))
			}
		}
	}
	b.ReportMetric(ms(plain.median()), "sandboxed-median-ms")
	b.ReportMetric(ms(layer.median()), "layer-median-ms")
	b.ReportMetric(float64(layer.median())/float64(plain.median()), "ratio")
	if strings.Contains(os.Getenv("CB_LS_BENCH_VERBOSE"), "1") {
		b.Logf("sandboxed %v, over the layer %v", plain, layer)
	}
}
