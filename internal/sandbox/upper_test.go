//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanUpperKinds: the scan of a layer that real commands changed
// tells each kind of change apart: a type change either way, a symlink
// pointed elsewhere, a directory's mode, a new fifo, a directory deleted
// and made again (what it hid, at every depth), and a whiteout over a
// file deleted on disk since (no change at all).
func TestScanUpperKinds(t *testing.T) {
	c, l := newLayerCase(t)
	for rel, text := range map[string]string{"f": "f", "d/x": "x", "gone.txt": "g", "n/keep": "k", "n/sub/old": "o", "m/in": "i"} {
		writeTestFile(t, filepath.Join(c.root, rel), text)
	}
	if err := os.Symlink("f", filepath.Join(c.root, "s")); err != nil {
		t.Fatal(err)
	}
	if entries, err := ScanUpper(l.Upper, l.Lower); err != nil || len(entries) != 0 {
		t.Fatalf("a layer that nothing changed: %v, %v", entries, err)
	}
	out := c.run(`rm f && mkdir f && echo y > f/y && rm -rf d && echo file > d && ln -sfn d s && chmod 700 m && mkfifo p && `+
		`rm gone.txt && rm -rf n && mkdir -p n/sub && echo z > n/sub/z && echo ok`, Policy{WriteWorkspace: true})
	if !strings.Contains(out, "ok\n[exit code 0]") {
		t.Fatalf("the command failed: %q", out)
	}
	scanIs(t, l, "d replaced", "f replaced", "f/y created", "gone.txt deleted", "m changed (mode only)",
		"n replaced", "n/keep deleted", "n/sub/old deleted", "n/sub/z created", "p created", "s changed -> d")
	if err := os.Remove(filepath.Join(c.root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	scanIs(t, l, "d replaced", "f replaced", "f/y created", "m changed (mode only)",
		"n replaced", "n/keep deleted", "n/sub/old deleted", "n/sub/z created", "p created", "s changed -> d")
	if entries, err := ScanUpper(filepath.Join(t.TempDir(), "missing"), l.Lower); err != nil || len(entries) != 0 {
		t.Errorf("a layer not made yet: %v, %v", entries, err)
	}
}
