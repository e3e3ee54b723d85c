package lsp_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// BenchmarkEditDiagnostics measures what asking the editor for
// diagnostics adds to an edit_file call, end to end through the real
// server and the fake editor: the tool call, the versioned applyEdit,
// the landing check, and catbuddy/diagnostics before and after the edit.
// The clients:
//
//   - none: answers MethodNotFound, as a client without the request (the
//     baseline: edits are reported without diagnostics);
//   - at-once: answers at once (diagnostics that changed right after the
//     edit, the settle rule's best case);
//   - settle-Nms: answers the request after the edit N ms late, as a
//     client whose diagnostics did not change and that waits out a quiet
//     period of N ms (the rule's worst case below the 2 s cap). The
//     request before the edit finds the document unchanged since the
//     last answer and is answered at once, as the clients do.
//
// Each reports median-ms, the median of its edit calls, and
// median-unslept-ms, the median of each call less the time the client
// actually slept (a sleep overshoots N on a loaded machine; that is the
// fake client's, not the server's). The target: median(settle-Nms) −
// median(none) ≤ N ms plus the server's own small cost (docs/context.md).
func BenchmarkEditDiagnostics(b *testing.B) {
	for _, c := range []struct {
		name   string
		diags  bool
		settle time.Duration
	}{
		{"none", false, 0},
		{"at-once", true, 0},
		{"settle-50ms", true, 50 * time.Millisecond},
		{"settle-200ms", true, 200 * time.Millisecond},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := writeTree(b, "-- a.go --\npackage a\n\nvar X = 1\n")
			e := newEditor(b, dir)
			e.OpenFile(filepath.Join(dir, "a.go"))
			var slept atomic.Int64
			if c.diags {
				e.SetDiagnostics(settlingClient(c.settle, &slept))
			}
			// Warm up: the first call registers the client's answer (or
			// its absence) for the connection.
			edit(b, e, "X = 1", "X = 2")
			edit(b, e, "X = 2", "X = 1")
			var times, unslept []time.Duration
			from, to := "X = 1", "X = 2"
			b.ResetTimer()
			for b.Loop() {
				slept.Store(0)
				t0 := time.Now()
				out := edit(b, e, from, to)
				d := time.Since(t0)
				times, unslept = append(times, d), append(unslept, d-time.Duration(slept.Load()))
				if c.diags != strings.Contains(out, "After this edit") {
					b.Fatalf("client %s: the edit's result:\n%s", c.name, out)
				}
				from, to = to, from
			}
			slices.Sort(times)
			slices.Sort(unslept)
			b.ReportMetric(float64(times[len(times)/2])/1e6, "median-ms")
			b.ReportMetric(float64(unslept[len(unslept)/2])/1e6, "median-unslept-ms")
		})
	}
}

func edit(b *testing.B, e *fake.Editor, from, to string) string {
	out, isErr := e.RunTool("edit_file", map[string]string{"path": "a.go", "old_string": from, "new_string": to})
	if isErr {
		b.Fatalf("edit_file %q → %q: %s", from, to, out)
	}
	return out
}

// settlingClient answers catbuddy/diagnostics like an editor whose
// diagnostics take settle to settle after a change: a request for a text
// it has not answered before waits settle (the emulated quiet period;
// this wait is the quantity measured, not a synchronisation), one for the
// text it last answered is answered at once. Each edit of a.go brings a
// new error, so the edit's result names it. The time it actually slept
// is added to slept.
func settlingClient(settle time.Duration, slept *atomic.Int64) fake.DiagnosticsFunc {
	var mu sync.Mutex
	last := map[uri.URI]string{}
	return func(u uri.URI, text string) []protocol.Diagnostic {
		mu.Lock()
		seen, known := last[u]
		last[u] = text
		mu.Unlock()
		if known && seen != text {
			t0 := time.Now()
			time.Sleep(settle)
			slept.Add(int64(time.Since(t0)))
		}
		return []protocol.Diagnostic{{
			Range:    protocol.Range{Start: protocol.Position{Line: 2, Character: 4}, End: protocol.Position{Line: 2, Character: 5}},
			Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("bench"),
			Message: protocol.String(fmt.Sprintf("X is %s", strings.TrimSpace(text[strings.LastIndex(text, "=")+1:]))),
		}}
	}
}
