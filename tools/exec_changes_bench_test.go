package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/catbuddy/cb-ls/guard"
)

// BenchmarkExecChangeScan measures what a write command adds to exec on
// a 20,000-file workspace with a .gitignore: one scan, and the before
// and after scans with their diff. Target: ≤ 150 ms. cpu-ns/op is the
// steadier figure on a loaded machine.
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
	tc := &ToolContext{Guard: g}
	roots := tc.scanRoots()
	if n := len(scanWorkspace(b.Context(), roots)); n != 20001 {
		b.Fatalf("scan saw %d files, want 20001", n)
	}
	b.Run("scan", func(b *testing.B) {
		loop(b, func() { scanWorkspace(b.Context(), roots) })
	})
	b.Run("before+after+diff", func(b *testing.B) {
		loop(b, func() {
			before := scanWorkspace(b.Context(), roots)
			after := scanWorkspace(b.Context(), roots)
			if d := diffScans(before, after, tc.relForReport); len(d) != 0 {
				b.Fatalf("unchanged tree reported %d changes", len(d))
			}
		})
	})
}
