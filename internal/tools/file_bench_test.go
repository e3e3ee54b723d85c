package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// bigSource returns about size bytes of Go-like text with one unique
// marker line in the middle, where the benchmarks edit.
func bigSource(size int) string {
	var b strings.Builder
	b.Grow(size + 100)
	for i := 0; b.Len() < size; i++ {
		if i == 60000 {
			b.WriteString("\tmarker := \"MARKER-A\" // the line the benchmark edits\n")
			continue
		}
		fmt.Fprintf(&b, "\tx%d := compute(%d, \"some text to make the line longer\") // %d\n", i, i, i)
	}
	return b.String()
}

type benchEnv struct {
	reg *Registry
	ctx context.Context
}

func newBenchEnv(b *testing.B, content string) benchEnv {
	return newBenchEnvOn(b, content, DiskWorkspace{})
}

// newBenchEnvOn builds the tools over ws; ws may be nil for the disk.
func newBenchEnvOn(b *testing.B, content string, ws Workspace) benchEnv {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		b.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Workspace: ws}
	reg := NewRegistry()
	for _, f := range []Factory{ReadFile, EditFile, WriteFile} {
		if err := reg.Register(f(tc)); err != nil {
			b.Fatal(err)
		}
	}
	return benchEnv{reg: reg, ctx: filestate.NewContext(b.Context(), filestate.New())}
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

func (e benchEnv) run(b *testing.B, name string, args any) Result {
	raw, _ := json.Marshal(args)
	res, err := e.reg.Execute(e.ctx, name, raw)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", name, err, res.Output)
	}
	return res
}

// BenchmarkEditFile10MB is edit_file end to end on a 10 MB file: read,
// unique-match check, atomic write with fsync, stats and diff.
// Target: ≤ 30 ms per edit.
func BenchmarkEditFile10MB(b *testing.B) {
	e := newBenchEnv(b, bigSource(10<<20))
	e.run(b, "read_file", map[string]any{"path": "big.go", "limit": 10})
	from, to := "MARKER-A", "MARKER-B"
	loop(b, func() {
		e.run(b, "edit_file", map[string]any{"path": "big.go", "old_string": from, "new_string": to})
		from, to = to, from
	})
}

// BenchmarkEditFile10MBBuffer is edit_file on a 10 MB document held in
// memory, as the LSP serves an open editor buffer: everything but the
// disk I/O (the match, the change, its check, stats and diff).
func BenchmarkEditFile10MBBuffer(b *testing.B) {
	ws := &memWorkspace{docs: map[string][]byte{}}
	e := newBenchEnvOn(b, bigSource(10<<20), ws)
	e.run(b, "read_file", map[string]any{"path": "big.go", "limit": 10})
	from, to := "MARKER-A", "MARKER-B"
	loop(b, func() {
		e.run(b, "edit_file", map[string]any{"path": "big.go", "old_string": from, "new_string": to})
		from, to = to, from
	})
}

// memWorkspace keeps documents in memory after their first read from
// disk, like the LSP's overlay of open buffers.
type memWorkspace struct {
	mu      sync.Mutex
	docs    map[string][]byte
	version int64
}

func (w *memWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.docs[p.Abs]
	if !ok {
		d, err := DiskWorkspace{}.Read(ctx, p)
		if err != nil {
			return d, err
		}
		c = d.Content
		w.docs[p.Abs] = c
	}
	return Document{Content: c, Stamp: filestate.Stamp{Version: w.version}, Open: true}, nil
}

func (w *memWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !bytes.Equal(w.docs[c.Path.Abs], c.Base.Content) {
		return Document{}, fmt.Errorf("%w: buffer changed", ErrRejected)
	}
	w.docs[c.Path.Abs] = c.After
	w.version++
	return Document{Content: c.After, Stamp: filestate.Stamp{Version: w.version}, Open: true}, nil
}

// BenchmarkReadUnchanged10MB is a re-read of an unchanged 10 MB file
// answered "unchanged": the document read plus the stamp and hash check.
// Target: ≤ 10 ms.
func BenchmarkReadUnchanged10MB(b *testing.B) {
	e := newBenchEnv(b, bigSource(10<<20))
	e.run(b, "read_file", map[string]any{"path": "big.go"})
	loop(b, func() {
		if res := e.run(b, "read_file", map[string]any{"path": "big.go"}); res.Output != unchangedMessage {
			b.Fatalf("not deduplicated: %.100s", res.Output)
		}
	})
}

// BenchmarkWriteFile10MB overwrites a 10 MB file changing one line: the
// minimal line diff for the editor, stats and the atomic write.
func BenchmarkWriteFile10MB(b *testing.B) {
	src := bigSource(10 << 20)
	e := newBenchEnv(b, src)
	e.run(b, "read_file", map[string]any{"path": "big.go", "limit": 10})
	versions := []string{strings.Replace(src, "MARKER-A", "MARKER-B", 1), src}
	i := 0
	loop(b, func() {
		e.run(b, "write_file", map[string]any{"path": "big.go", "content": versions[i%2]})
		i++
	})
}

// BenchmarkEditNotFound10MB is the error path on a 10 MB file: the
// search for the closest region and the explanation of the difference.
func BenchmarkEditNotFound10MB(b *testing.B) {
	ws := &memWorkspace{docs: map[string][]byte{}}
	e := newBenchEnvOn(b, bigSource(10<<20), ws)
	args, _ := json.Marshal(map[string]any{"path": "big.go", "old_string": "\tmarker := 'MARKER-A' // the line the benchmark edits\n", "new_string": "x"})
	loop(b, func() {
		res, err := e.reg.Execute(e.ctx, "edit_file", args)
		if err != nil || !strings.Contains(res.Output, "quotes") {
			b.Fatalf("%v %s", err, res.Output)
		}
	})
}
