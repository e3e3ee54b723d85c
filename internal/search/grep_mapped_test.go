//go:build unix

package search

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// bigText is a text file large enough to be mapped, with needle on its
// first and last lines (the last without a final newline).
func bigText(needle string) []byte {
	var b bytes.Buffer
	b.WriteString(needle + " first\n")
	for b.Len() < 2*safefile.MapThreshold {
		b.WriteString("filler line of a large generated file, nothing to find here\n")
	}
	b.WriteString("last " + needle)
	return b.Bytes()
}

// TestGrepMappedFiles: large files, which grep maps instead of reading,
// match as small ones do (line numbers, the last line without a
// newline); a large binary file is skipped from its first bytes.
func TestGrepMappedFiles(t *testing.T) {
	dir := writeTree(t, "-- small.txt --\nneedle small\n")
	big := bigText("needle")
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := append([]byte("needle\x00"), bigText("needle")...)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(big, []byte("\n")) + 1
	out := grepTree(t, dir, "needle")
	want := "big.txt\n1:needle first\n" + itoa(lines) + ":last needle\n\nsmall.txt\n1:needle small"
	if out != want {
		t.Errorf("grep = %q\nwant %q", out, want)
	}
}

// TestGrepMappedFileTruncated: a large file truncated between its
// mapping and its search (a build rewriting it) faults on the lost
// pages; grep counts it as unreadable and reports the other files,
// instead of crashing the process.
func TestGrepMappedFileTruncated(t *testing.T) {
	dir := writeTree(t, "-- small.txt --\nneedle small\n")
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), bigText("needle"), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := false
	afterRead = func(rel string) {
		if rel == "big.txt" {
			truncated = os.Truncate(filepath.Join(dir, "big.txt"), 0) == nil
		}
	}
	t.Cleanup(func() { afterRead = nil })
	out := grepTree(t, dir, "needle")
	if !truncated {
		t.Fatal("big.txt was not truncated after its read")
	}
	want := "small.txt\n1:needle small\n(1 files or directories could not be read)"
	if out != want {
		t.Errorf("grep = %q\nwant %q", out, want)
	}
}

func grepTree(t *testing.T, dir, pattern string) string {
	t.Helper()
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	start, err := g.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	grep, err := NewGrep(GrepQuery{Pattern: pattern, Literal: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := grep.Tree(t.Context(), start, Displayer(dir, start), ".")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

func itoa(n int) string { return strconv.Itoa(n) }
