package lsp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// BenchmarkDidChange measures the server's whole didChange handler for one
// typed character (JSON decode, overlay lookup, position mapping, edit) in
// a 1 MB and a 10 MB document. Target: ≤ 20 µs median at 10 MB, and the
// 10 MB figure within 1.5× of the 1 MB one.
func BenchmarkDidChange(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			s := newServer(Options{})
			u := fileuri.FromPath("/tmp/bench.go")
			line := "\tfmt.Println(\"hello, world\") // 😀 comment\n"
			text := strings.Repeat(line, size/len(line))
			if _, err := s.overlay.Open(u, "go", 1, text); err != nil {
				b.Fatal(err)
			}
			mid := uint32(strings.Count(text, "\n") / 2)
			msgs := make([][]byte, 1000)
			for i := range msgs {
				raw, err := protocol.Marshal(&protocol.DidChangeTextDocumentParams{
					TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: int32(i + 2)},
					ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
						Range: protocol.Range{Start: protocol.Position{Line: mid, Character: 5}, End: protocol.Position{Line: mid, Character: 5}}, Text: "x"}},
				})
				if err != nil {
					b.Fatal(err)
				}
				msgs[i] = raw
			}
			ctx := context.Background()
			b.ResetTimer()
			cpu0 := int64(testenv.CPUTime())
			for i := 0; b.Loop(); i++ {
				if _, err := s.didChange(ctx, msgs[i%len(msgs)]); err != nil {
					b.Fatal(err)
				}
			}
			// Wall time is unreliable on a shared machine; the process's
			// CPU time per operation is the steadier figure.
			b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// TestOpenDocumentsMemory: 1,000 open documents of 100 KB must stay under
// 3× their text size in heap (the live heap is measured, not assumed).
func TestOpenDocumentsMemory(t *testing.T) {
	testenv.SkipIfShort(t, "allocates 100 MB")
	const n, size = 1000, 100 << 10
	line := "some source text, 日本語 and 😀 emoji\n"
	text := strings.Repeat(line, size/len(line))
	o := NewOverlay()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		// A fresh string per document, as each didOpen decodes its own.
		doc := strings.Clone(text)
		if _, err := o.Open(fileuri.FromPath(fmt.Sprintf("/tmp/mem/%d.txt", i)), "plaintext", 1, doc); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	total := int64(n * len(text))
	t.Logf("1,000 × %d B documents: %.1f MB heap for %.1f MB of text (%.2f×)", len(text), float64(used)/1e6, float64(total)/1e6, float64(used)/float64(total))
	if used > 3*total {
		t.Errorf("open documents use %.2f× their text size, want < 3×", float64(used)/float64(total))
	}
	runtime.KeepAlive(o)
}
