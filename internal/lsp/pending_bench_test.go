package lsp_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// benchSet leaves a pending set of 4 files with 6 hunks each (24) in a
// new folder, as a run would, and returns the folder and the run id. A
// server started on the folder finds it.
func benchSet(b *testing.B) (string, string) {
	b.Helper()
	return benchSetOf(b, 4, 6)
}

// benchSetOf is benchSet with files files of hunks hunks each (at most 6).
func benchSetOf(b *testing.B, files, hunks int) (string, string) {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	g, err := guard.New([]string{dir}, guard.ModeAuto)
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	for i := range 120 {
		lines = append(lines, fmt.Sprintf("\tx%d := compute(%d) // line %d", i, i, i+1))
	}
	base := []byte("package bench\n\nfunc f() {\n" + strings.Join(lines, "\n") + "\n}\n")
	var changes []tools.Change
	for n := range files {
		name := fmt.Sprintf("f%d.go", n)
		if err := os.WriteFile(filepath.Join(dir, name), base, 0o644); err != nil {
			b.Fatal(err)
		}
		p, err := g.Resolve(name)
		if err != nil {
			b.Fatal(err)
		}
		var edits []diff.Edit
		for h := range hunks {
			old := fmt.Sprintf("compute(%d)", 10+20*h)
			at := strings.Index(string(base), old)
			edits = append(edits, diff.Edit{Start: at, End: at + len(old), NewText: fmt.Sprintf("computeFast(%d, %d)", 10+20*h, n)})
		}
		after, err := diff.Apply(base, edits)
		if err != nil {
			b.Fatal(err)
		}
		changes = append(changes, tools.Change{Path: p, Base: tools.Document{Content: base}, Edits: edits, After: after, Label: "bench " + name})
	}
	st, err := changeset.Open(g, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	const id = "r-bench-keep"
	set, err := st.Begin(id, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tools.ApplyAll(context.Background(), set.Workspace(tools.DiskWorkspace{}), changes); err != nil {
		b.Fatal(err)
	}
	if n := set.Count(); n != files*hunks {
		b.Fatalf("the set has %d hunks, want %d", n, files*hunks)
	}
	return dir, id
}

// BenchmarkPendingChanges measures building a 4-file, 24-hunk set's
// catbuddy/pendingChanges payload (every hunk placed in the files as
// they are now), through catbuddy.pendingChanges, whose answer is the
// notification's files: the round trip over the pipe bounds the
// notification's cost. Target: ≤ 5 ms.
func BenchmarkPendingChanges(b *testing.B) {
	dir, id := benchSet(b)
	ed := fake.New(b, fake.Options{Folders: []string{dir}, PendingChanges: true})
	ed.AwaitPending(id, "the set found at start", func(fs []lsp.PendingFile) bool { return len(fake.HunkIDs(fs)) == 24 })
	arg := []any{map[string]any{"runId": id}}
	b.ResetTimer()
	for b.Loop() {
		var list lsp.PendingList
		if err := ed.ExecuteCommand(lsp.CmdPendingChanges, arg, &list); err != nil || len(list.Runs) != 1 {
			b.Fatalf("pendingChanges: %+v, %v", list, err)
		}
	}
}

// BenchmarkKeep measures catbuddy.keep of a 4-file, 24-hunk set from the
// request to the workspace/applyEdit arriving at the editor. The editor
// refuses the edit, so the set stays whole for the next iteration.
// Target: ≤ 50 ms.
func BenchmarkKeep(b *testing.B) {
	dir, id := benchSet(b)
	ed := fake.New(b, fake.Options{Folders: []string{dir}, PendingChanges: true})
	ed.AwaitPending(id, "the set found at start", func(fs []lsp.PendingFile) bool { return len(fake.HunkIDs(fs)) == 24 })
	var mu sync.Mutex
	var arrived time.Time
	ed.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		mu.Lock()
		arrived = time.Now()
		mu.Unlock()
		return fake.Reject("benchmark")(e, p)
	})
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		// The refusal makes the keep an error: nothing was kept.
		_, _ = ed.Keep(id, nil, nil)
		mu.Lock()
		total += arrived.Sub(start)
		mu.Unlock()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-applyEdit")
}

// BenchmarkKeep50Hunks measures catbuddy.keep of a 10-file, 50-hunk set
// from the request to the workspace/applyEdit arriving at the editor, as
// BenchmarkKeep does. Target: ≤ 50 ms median.
func BenchmarkKeep50Hunks(b *testing.B) {
	dir, id := benchSetOf(b, 10, 5)
	benchKeepToApplyEdit(b, dir, id, 50, "")
}

// BenchmarkKeepResolveConflict measures catbuddy.keep with conflicts
// "markers" of one hunk the user's text conflicts with (the line it
// changes was changed on disk), to the applyEdit. Target: ≤ 20 ms.
func BenchmarkKeepResolveConflict(b *testing.B) {
	dir, id := benchSetOf(b, 1, 1)
	name := filepath.Join(dir, "f0.go")
	text, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(string(text), "compute(10)", "compute(10, mine)", 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	benchKeepToApplyEdit(b, dir, id, 1, "markers")
}

// benchKeepToApplyEdit keeps run id's n hunks again and again, resolving
// conflicts as conflicts says, and reports the time from the request to
// the applyEdit; the editor refuses the edit, so the set stays whole.
func benchKeepToApplyEdit(b *testing.B, dir, id string, n int, conflicts string) {
	ed := fake.New(b, fake.Options{Folders: []string{dir}, PendingChanges: true})
	ed.AwaitPending(id, "the set found at start", func(fs []lsp.PendingFile) bool { return len(fake.HunkIDs(fs)) == n })
	var mu sync.Mutex
	var arrived time.Time
	ed.SetApplyEdit(func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		mu.Lock()
		arrived = time.Now()
		mu.Unlock()
		return fake.Reject("benchmark")(e, p)
	})
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		mu.Lock()
		arrived = time.Time{}
		mu.Unlock()
		// The refusal makes the keep an error: nothing was kept.
		if conflicts == "" {
			_, _ = ed.Keep(id, nil, nil)
		} else {
			_, _ = ed.KeepResolving(id, nil, nil, conflicts)
		}
		mu.Lock()
		if arrived.IsZero() {
			mu.Unlock()
			b.Fatal("the keep sent no applyEdit")
		}
		total += arrived.Sub(start)
		mu.Unlock()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-applyEdit")
}
