package lspclient

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// BenchmarkRunViewDiagnostics measures what cb-ls adds to a language
// server's own time when it checks an edit on a run's view: each
// iteration changes calc.go twice, alternating a text with an error and
// one without, on one gopls:
//
//   - cb-ls: the check an edit makes (Checks().DiagnosticsOf under a run's
//     view that has calc.go pending): the view gate, didChange of the
//     run's text, and the wait until gopls published for that version;
//   - direct: a bare didChange of the same text on the same connection,
//     timed until gopls's publishDiagnostics for that version arrives:
//     gopls's own time to publish.
//
// The two alternate which goes first. It reports the medians
// (cbls-median-ms, direct-median-ms), the median of the per-iteration
// differences (overhead-median-ms; the target is ≤ 20 ms), and the
// resident memory of the gopls process tree (rss-MB).
func BenchmarkRunViewDiagnostics(b *testing.B) {
	gopls := testenv.NeedsTool(b, "gopls", "the run's view diagnostics benchmark", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	good := "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n"
	bad := strings.Replace(good, "a + b }", "a + totalMark }", 1)
	calc := filepath.Join(dir, "calc.go")
	for name, text := range map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": good} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	c := New(Options{Roots: []string{dir}, Servers: map[string]ServerConfig{"gopls": {Command: []string{gopls}, Extensions: []string{".go"}}}})
	b.Cleanup(func() { c.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := c.get(ctx, "gopls")
	if err != nil {
		b.Fatal(err)
	}
	c.awaitReady(ctx, s)

	run := []byte(good) // the run's pending calc.go
	view := tools.WithRunView(ctx, tools.RunView{ID: "bench", Workspace: tools.DiskWorkspace{}, Files: func() []tools.ViewFile {
		return []tools.ViewFile{{Path: calc, Read: func() ([]byte, error) { return run, nil }}}
	}})
	checks := c.Checks().(tools.ContentDiagnostics)
	viaCBLS := func(text string) time.Duration {
		run = []byte(text)
		t0 := time.Now()
		ds, err := checks.DiagnosticsOf(view, calc, run)
		d := time.Since(t0)
		if err != nil || (text == bad) != (len(ds) == 1) {
			b.Fatalf("cb-ls's check of the run's text: %+v, %v", ds, err)
		}
		return d
	}
	direct := func(text string) time.Duration {
		t0 := time.Now()
		if err := directCheck(ctx, s, calc, []byte(text)); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// Each check gets the text gopls does not have: every one is a new
	// version to type-check and publish.
	cur := good
	next := func() string {
		if cur == good {
			cur = bad
		} else {
			cur = good
		}
		return cur
	}
	// Warm up: gopls type-checks the package once for each text.
	for range 4 {
		viaCBLS(next())
		direct(next())
	}
	var ours, theirs, over []time.Duration
	first := true
	b.ResetTimer()
	for b.Loop() {
		var o, d time.Duration
		if first {
			o = viaCBLS(next())
			d = direct(next())
		} else {
			d = direct(next())
			o = viaCBLS(next())
		}
		first = !first
		ours, theirs, over = append(ours, o), append(theirs, d), append(over, o-d)
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / 1e6
	}
	b.ReportMetric(median(ours), "cbls-median-ms")
	b.ReportMetric(median(theirs), "direct-median-ms")
	b.ReportMetric(median(over), "overhead-median-ms")
	for _, p := range c.Processes() {
		if p.RSS > 0 {
			b.ReportMetric(float64(p.RSS)/1e6, "rss-MB")
		}
	}
}

// directCheck tells s that path holds content (didChange) and waits for
// the publishDiagnostics of that version, without the view, the gate or
// the settle rule: the server's own time.
func directCheck(ctx context.Context, s *server, path string, content []byte) error {
	if _, err := s.open(ctx, path, content); err != nil {
		return err
	}
	for {
		s.mu.Lock()
		d := s.docs[path]
		p, ok := s.diags[d.uri]
		news := s.diagsNews
		done := ok && p.versioned && p.version >= d.version
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-news:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
