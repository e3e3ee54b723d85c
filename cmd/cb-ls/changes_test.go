package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// needsLayer ends a test of pending changes where the system has no
// copy-on-write layer (cb-ls then reviews before, as the fallback
// tests check).
func needsLayer(t *testing.T) {
	t.Helper()
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
}

// Without a terminal and without --yes the run's changes stay pending:
// nothing is refused and nothing reaches the disk; cb-ls changes shows
// them, and cb-ls changes --keep applies them.
func TestRunWithoutTerminalLeavesChangesPending(t *testing.T) {
	needsLayer(t)
	root, stderr, told := runEdits(t, nil, strings.NewReader(""), false)
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Fatalf("calc.go changed on disk while pending:\n%s", got)
	}
	for _, name := range []string{"notes.txt", ".envrc"} {
		if _, err := os.Stat(filepath.Join(root, name)); !os.IsNotExist(err) {
			t.Fatalf("%s was written (stat: %v)", name, err)
		}
	}
	for i, s := range told {
		if !strings.Contains(s, "pending the user's review") {
			t.Errorf("tool result %d told the model %q", i, s)
		}
	}
	if !strings.Contains(stderr, "cb-ls changes --keep") {
		t.Errorf("stderr does not say how to keep the changes:\n%s", stderr)
	}

	var out, errOut strings.Builder
	if code := run([]string{"changes", "--root", root}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("cb-ls changes: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{"calc.go (changed)", "+\treturn a + b", "notes.txt (created)", ".envrc (created)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("cb-ls changes lacks %q:\n%s", want, out.String())
		}
	}
	// Keep one file, then discard the rest.
	out.Reset()
	if code := run([]string{"changes", "--root", root, "--keep", "calc.go"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("cb-ls changes --keep calc.go: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); !strings.Contains(got, "return a + b") {
		t.Fatalf("calc.go after --keep:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("keeping calc.go wrote notes.txt too")
	}
	if code := run([]string{"changes", "--root", root, "--keep"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("cb-ls changes --keep: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); got != "notes\n" {
		t.Fatalf("notes.txt after --keep = %q", got)
	}
	out.Reset()
	if code := run([]string{"changes", "--root", root}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), "No pending changes") {
		t.Fatalf("after keeping all: exit %d\n%s", code, out.String())
	}
}

// cb-ls changes --discard drops the set and leaves the disk as it was.
func TestChangesDiscard(t *testing.T) {
	needsLayer(t)
	root, _, _ := runEdits(t, nil, strings.NewReader(""), false)
	var out, errOut strings.Builder
	if code := run([]string{"changes", "--root", root, "--discard"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "discarded 3 change(s)") {
		t.Errorf("output: %s", out.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Errorf("calc.go changed:\n%s", got)
	}
	out.Reset()
	if code := run([]string{"changes", "--root", root}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), "No pending changes") {
		t.Fatalf("after the discard: exit %d\n%s", code, out.String())
	}
}
