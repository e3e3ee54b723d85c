package changeset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// BenchmarkCollect1000: what the change set adds after a command that
// left 1,000 changed files in the layer: the scan of the upper
// directory (sandbox.ScanUpper), the set's index rebuilt and the
// command's report made. The layer's mount is measured beside it in
// internal/sandbox (BenchmarkLayerMountScan); bench/changeset.sh prints
// both against the 20 ms target.
func BenchmarkCollect1000(b *testing.B) {
	needsOverlay(b)
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("pkg%02d/file%03d.go", i%20, i)] = fmt.Sprintf("package pkg\n\nconst X%d = %d\n", i, i)
	}
	fxb := newFixture(b, files)
	set := fxb.set
	f, err := func() (*folder, error) {
		set.mu.Lock()
		defer set.mu.Unlock()
		return set.folderFor(fxb.root)
	}()
	if err != nil {
		b.Fatal(err)
	}
	for rel, text := range files {
		if err := f.layer.WriteFile(rel, []byte(strings.Replace(text, "const", "var", 1)), 0); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	// As a command that made them would: the first collect finds them.
	warm := set.Layer(tools.DiskWorkspace{})
	if _, err := warm.Prepare(ctx, []string{fxb.root}); err != nil {
		b.Fatal(err)
	}
	if rep, err := warm.Collect(ctx); err != nil || !strings.Contains(rep.Summary, "and 980 more") {
		b.Fatalf("the first collect: %q, %v", rep.Summary, err)
	}
	var total time.Duration
	b.ResetTimer()
	cpu := testenv.CPUTime()
	for b.Loop() {
		l := set.Layer(tools.DiskWorkspace{})
		start := time.Now()
		if _, err := l.Prepare(ctx, []string{fxb.root}); err != nil {
			b.Fatal(err)
		}
		rep, err := l.Collect(ctx)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Summary != "" {
			b.Fatalf("nothing ran, yet the report says %q", rep.Summary)
		}
	}
	cpu = testenv.CPUTime() - cpu
	if n := len(set.Files()); n != 1000 {
		b.Fatalf("%d pending files, want 1000", n)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "collect-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkKeep24Hunks: a keep of a set of 4 files with 6 hunks each,
// from the call to the one ApplyAll (what the editor's applyEdit is
// made of), over files the user also typed in (each hunk is merged
// three-way). Target: ≤ 50 ms.
func BenchmarkKeep24Hunks(b *testing.B) {
	var lines []string
	for i := range 600 {
		lines = append(lines, fmt.Sprintf("\tx%d := compute(%d) // line %d", i, i, i))
	}
	text := "package p\n\nfunc f() {\n" + strings.Join(lines, "\n") + "\n}\n"
	names := []string{"a.go", "b.go", "c.go", "d.go"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = text
	}
	ws := &recordingWorkspace{}
	var total, cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		fx := newFixture(b, files)
		for _, n := range names {
			for h := range 6 {
				old := fmt.Sprintf("compute(%d)", 50+h*90)
				fx.edit(fx.view, n, old, "computeFast("+old[len("compute("):])
			}
		}
		// The user typed far from every hunk since.
		for _, n := range names {
			cur := strings.Replace(text, "// line 5\n", "// line 5, typed\n", 1)
			writeFile(b, fx.root, n, cur)
		}
		if c := fx.set.Count(); c != 24 {
			b.Fatalf("%d hunks pending, want 24", c)
		}
		ws.start = time.Now()
		c := testenv.CPUTime()
		b.StartTimer()
		if _, err := fx.set.Keep(context.Background(), Selection{}, ws); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += testenv.CPUTime() - c
		b.StartTimer()
		total += ws.at
		if ws.edits != 24 {
			b.Fatalf("%d edits applied, want 24", ws.edits)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "to-applyall-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// recordingWorkspace reads the disk and notes when ApplyAll is called
// and with how many edits; it writes nothing (the benchmark measures
// up to the editor's applyEdit).
type recordingWorkspace struct {
	tools.DiskWorkspace
	start time.Time
	at    time.Duration
	edits int
}

func (w *recordingWorkspace) ApplyAll(_ context.Context, cs []tools.Change) ([]tools.Document, error) {
	w.at = time.Since(w.start)
	w.edits = 0
	docs := make([]tools.Document, len(cs))
	for i, c := range cs {
		w.edits += len(c.Edits)
		docs[i] = tools.Document{Content: slices.Clone(c.After)}
	}
	return docs, nil
}
