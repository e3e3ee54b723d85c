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
// succeeds, and returns its output.
func (w *benchWorkspace) run(b *testing.B, overlay bool, argv ...string) string {
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
	return out.String()
}

// cpuTime is the CPU time of this process and of its children that
// ended (the helpers and the commands): steadier than the wall clock on
// a shared machine.
func cpuTime() time.Duration {
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

// BenchmarkLayerMountScan: what the layer adds to one command, and the
// scan of its upper directory, for a layer that holds 1,000 changed
// files (the target: ≤ 20 ms for both). Each iteration runs /bin/true
// sandboxed as today, then over the layer (the helper mounts it, the
// namespace takes it down with the command), then scans the layer, so
// that all three see the same load. It reports the medians: of each
// command, of the scan, and of the layer's cost (the difference of the
// two commands) with and without the scan, in wall and in CPU time
// (the server's, the helpers' and the commands').
func BenchmarkLayerMountScan(b *testing.B) {
	w := newBenchWorkspace(b)
	for i := range 1000 {
		rel := fmt.Sprintf("pkg%02d/file%03d.go", i%20, i)
		writeTestFile(b, filepath.Join(w.root, rel), fmt.Sprintf("package pkg%02d\n\nconst C%d = %d\n", i%20, i, i))
		if err := w.layer.WriteFile(rel, fmt.Appendf(nil, "package pkg%02d\n\nconst C%d = %d // changed\n", i%20, i, -i), 0); err != nil {
			b.Fatal(err)
		}
	}
	var plain, over, scan, mount, total, mountCPU, scanCPU, totalCPU timings
	for b.Loop() {
		t0, c0 := time.Now(), cpuTime()
		w.run(b, false, "/bin/true")
		t1, c1 := time.Now(), cpuTime()
		w.run(b, true, "/bin/true")
		t2, c2 := time.Now(), cpuTime()
		entries, err := ScanUpper(w.layer.Upper, w.layer.Lower)
		if err != nil || len(entries) != 1000 {
			b.Fatalf("scan: %d entries, %v", len(entries), err)
		}
		t3, c3 := time.Now(), cpuTime()
		plain, over, scan = append(plain, t1.Sub(t0)), append(over, t2.Sub(t1)), append(scan, t3.Sub(t2))
		mount = append(mount, t2.Sub(t1)-t1.Sub(t0))
		total = append(total, t2.Sub(t1)-t1.Sub(t0)+t3.Sub(t2))
		mountCPU, scanCPU = append(mountCPU, (c2-c1)-(c1-c0)), append(scanCPU, c3-c2)
		totalCPU = append(totalCPU, (c2-c1)-(c1-c0)+(c3-c2))
	}
	b.ReportMetric(ms(plain.median()), "sandboxed-ms")
	b.ReportMetric(ms(over.median()), "layer-ms")
	b.ReportMetric(ms(mount.median()), "mount-ms")
	b.ReportMetric(ms(scan.median()), "scan-ms")
	b.ReportMetric(ms(total.median()), "mount+scan-ms")
	b.ReportMetric(ms(mountCPU.median()), "mount-cpu-ms")
	b.ReportMetric(ms(scanCPU.median()), "scan-cpu-ms")
	b.ReportMetric(ms(totalCPU.median()), "mount+scan-cpu-ms")
}

// BenchmarkLayerGoTest: `go test ./...` in a project of 20,000 files
// (20 packages with tests, the rest data as real projects have it),
// sandboxed as today and over a layer holding a few pending edits,
// alternately, so that both see the same load. It reports both medians
// and their ratio (the target: ≤ 1.1). The user's Go build cache is
// warmed first, as it is after the user's own first run, so each call
// mostly loads the 20,000 files' packages and finds the results cached:
// the part of go test that the layer can slow. bench/layer.sh runs it.
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
	// Pending edits that change no package: the layer's runs build
	// what the plain runs build, from the same warm cache.
	for p := range 5 {
		rel := fmt.Sprintf("pkg%02d/testdata/d%02d/case%05d.txt", p, p, p)
		if err := w.layer.WriteFile(rel, []byte("pending edit\n"), 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.layer.WriteFile("NOTES.md", []byte("a new file\n"), 0); err != nil {
		b.Fatal(err)
	}
	warm := exec.Command(gobin, "test", "./...")
	warm.Dir = w.root
	if out, err := warm.CombinedOutput(); err != nil {
		b.Fatalf("warming the build cache: %v\n%s", err, out)
	}
	argv := []string{gobin, "test", "./..."}
	var plain, layer, plainCPU, layerCPU timings
	cached := map[bool]int{}
	for i := 0; b.Loop(); i++ {
		for _, over := range []bool{i%2 == 0, i%2 != 0} {
			start, cpu := time.Now(), cpuTime()
			out := w.run(b, over, argv...)
			if over {
				layer, layerCPU = append(layer, time.Since(start)), append(layerCPU, cpuTime()-cpu)
			} else {
				plain, plainCPU = append(plain, time.Since(start)), append(plainCPU, cpuTime()-cpu)
			}
			cached[over] = strings.Count(out, "(cached)")
		}
	}
	if cached[true] != cached[false] {
		b.Errorf("the runs did different work: %d packages cached over the layer, %d without", cached[true], cached[false])
	}
	b.ReportMetric(ms(plain.median()), "sandboxed-median-ms")
	b.ReportMetric(ms(layer.median()), "layer-median-ms")
	b.ReportMetric(float64(layer.median())/float64(plain.median()), "ratio")
	b.ReportMetric(ms(plainCPU.median()), "sandboxed-cpu-ms")
	b.ReportMetric(ms(layerCPU.median()), "layer-cpu-ms")
	b.ReportMetric(float64(layerCPU.median())/float64(plainCPU.median()), "cpu-ratio")
	b.ReportMetric(float64(cached[true]), "cached-pkgs")
}
