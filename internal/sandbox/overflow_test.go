//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestLayerForeignOwner: a file or directory whose owner the helper's
// user namespace does not map cannot be copied up, so a command over
// the layer cannot change it (EOVERFLOW). The result's note names it
// and says why, whether the output names the file or not; nothing on
// disk changes.
func TestLayerForeignOwner(t *testing.T) {
	testenv.Needs(t, os.Getuid() == 0, "root (to give files an owner the sandbox does not map)",
		fmt.Sprintf("running as uid %d", os.Getuid()), "run the tests as root, as .ci/run does")
	c, _ := newLayerCase(t)
	const foreign = 12345
	writeTestFile(t, filepath.Join(c.root, "foreign.txt"), "theirs")
	writeTestFile(t, filepath.Join(c.root, "shared", "x.txt"), "x")
	for _, p := range []string{"foreign.txt", "shared", "shared/x.txt"} {
		if err := os.Chown(filepath.Join(c.root, p), foreign, foreign); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(c.root, p), 0o777)
	}
	before := diskState(t, c.root)
	run := func(line string) (string, *Run) {
		t.Helper()
		r := c.prepare(c.root, line, Policy{WriteWorkspace: true})
		out := shell.NewOutput(10000)
		if _, err := shell.Run(t.Context(), r.Cmd, out, 10*time.Minute, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		r.Cleanup()
		return out.String(), r
	}
	out, r := run("echo more >> foreign.txt; echo new > shared/new.txt; cat foreign.txt")
	if !strings.Contains(strings.ToLower(out), eoverflowText) || !strings.Contains(out, "theirs") {
		t.Fatalf("writing files of an unmapped owner over the layer: %q", out)
	}
	note := r.LayerNote(out)
	for _, want := range []string{"foreign.txt (uid 12345, gid 12345)", "shared/ (uid 12345, gid 12345)", "EOVERFLOW", "maps only your own user (uid 0)", "Nothing on disk changed"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q: %s", want, note)
		}
	}
	sameDisk(t, before, diskState(t, c.root))

	// Output that does not name the file: the workspace's foreign files
	// are named instead.
	out, r = run(`printf 'error: Value too large for defined data type\n'`)
	if note := r.LayerNote(out); !strings.Contains(note, "without naming the file") || !strings.Contains(note, "foreign.txt (uid 12345") {
		t.Errorf("the note for an output without a path: %s", note)
	}
	// No EOVERFLOW, no note.
	out, r = run("echo fine")
	if note := r.LayerNote(out); note != "" {
		t.Errorf("a note without EOVERFLOW: %s", note)
	}
}

func TestPathCandidates(t *testing.T) {
	for line, want := range map[string]string{
		"sh: 1: cannot create foreign.txt: Value too large for defined data type":                "foreign.txt",
		"sed: couldn't open temporary file ./sedAb12: Value too large for defined data type":     "./sedAb12",
		"rm: cannot remove 'dir/a b.txt': Value too large for defined data type":                 "dir/a b.txt",
		"OSError: [Errno 75] Value too large for defined data type: 'src/x.py'":                  "src/x.py",
		"open src/gen.go: value too large for defined data type":                                 "src/gen.go",
		"Error: EOVERFLOW: value too large for defined data type, open '/w/node_modules/a/b.js'": "/w/node_modules/a/b.js",
		"touch: cannot touch ‘weird name’: Value too large for defined data type":                "weird name",
	} {
		found := false
		for _, c := range pathCandidates(line) {
			if c == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: candidates %q lack %q", line, pathCandidates(line), want)
		}
	}
}
