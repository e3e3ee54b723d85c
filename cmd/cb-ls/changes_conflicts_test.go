package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// These tests check that every conflict cb-ls changes --keep meets has a
// way out: --conflicts resolves it as both, theirs (yours), run or
// markers.

const table = "cases := []int{\n\t1,\n}\n"

// insertRun is a run that reads table.go and adds line after "\t1,".
func insertRun(t *testing.T, root, line string) string {
	t.Helper()
	_, stderr := pendingRun(t, root, agenttest.Call("read_file", map[string]any{"path": "table.go"}),
		agenttest.Call("edit_file", map[string]any{"path": "table.go", "old_string": "\t1,", "new_string": "\t1,\n" + line}))
	return runIDIn(t, stderr)
}

// twoRuns makes two runs that insert at one line of table.go and keeps
// the first; the second's keep then meets a conflict, and a plain keep
// leaves it pending, naming --conflicts. It returns the second run.
func twoRuns(t *testing.T) (root, second string) {
	t.Helper()
	needsLayer(t)
	root = projectWith(t, map[string]string{"table.go": table})
	first := insertRun(t, root, "\t2,")
	second = insertRun(t, root, "\t3,")
	if code, out, errOut := changes(t, "--root", root, "--keep", first); code != 0 {
		t.Fatalf("keep the first run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := changes(t, "--root", root, second, "--keep")
	if code != 1 || !strings.Contains(out, "the user changed lines at or next to line 3") || !strings.Contains(out, "--keep --conflicts=both|theirs|run|markers") {
		t.Fatalf("plain keep of the second run: exit %d, want 1 naming the conflict and --conflicts\n%s%s", code, out, errOut)
	}
	return root, second
}

func TestChangesKeepResolvesConflicts(t *testing.T) {
	for _, c := range []struct {
		flag, want string
	}{
		{"--conflicts=both", "cases := []int{\n\t1,\n\t2,\n\t3,\n}\n"},
		{"--conflicts=yours", "cases := []int{\n\t1,\n\t2,\n}\n"},
		{"--conflicts=theirs", "cases := []int{\n\t1,\n\t2,\n}\n"},
		{"--conflicts=run", "cases := []int{\n\t1,\n\t3,\n}\n"},
		{"--conflicts=markers", "cases := []int{\n\t1,\n<<<<<<< yours\n\t2,\n=======\n\t3,\n>>>>>>> run RUN (cb-ls run)\n}\n"},
	} {
		t.Run(strings.TrimPrefix(c.flag, "--conflicts="), func(t *testing.T) {
			root, second := twoRuns(t)
			// The flag after the run id, as the others may stand.
			code, out, errOut := changes(t, "--root", root, "--keep", second, c.flag)
			if code != 0 || !strings.Contains(out, "resolved ") {
				t.Fatalf("keep %s: exit %d\n%s%s", c.flag, code, out, errOut)
			}
			want := strings.Replace(c.want, "RUN", second, 1)
			if got := readOr(t, filepath.Join(root, "table.go")); got != want {
				t.Errorf("table.go after %s:\n%s\nwant:\n%s", c.flag, got, want)
			}
			if code, out, _ := changes(t, "--root", root, second); code != 1 {
				t.Errorf("the run is still pending after %s: exit %d\n%s", c.flag, code, out)
			}
		})
	}
}

// A file the user deleted: both and markers leave it, naming theirs and
// run; run writes the run's file back; theirs drops the run's change.
func TestChangesKeepResolvesADeletedFile(t *testing.T) {
	needsLayer(t)
	root := projectWith(t, map[string]string{"notes.txt": "one\n", "other.txt": "x\n"})
	read := func(p string) agenttest.ToolCall { return agenttest.Call("read_file", map[string]any{"path": p}) }
	_, stderr := pendingRun(t, root, read("notes.txt"), writeCall("notes.txt", "ONE\n"), read("other.txt"), writeCall("other.txt", "X\n"))
	id := runIDIn(t, stderr)
	for _, rel := range []string{"notes.txt", "other.txt"} {
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := changes(t, "--root", root, "--keep", "--conflicts=markers", id)
	if code != 1 || !strings.Contains(out, "markers applies only to text hunks of a file that exists") || !strings.Contains(out, "theirs") || !strings.Contains(out, "or run") {
		t.Errorf("markers over a deleted file: exit %d, want 1 naming theirs and run\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("markers re-created notes.txt (stat: %v)", err)
	}
	if code, out, errOut := changes(t, "--root", root, "--keep", id, "notes.txt", "--conflicts=run"); code != 0 {
		t.Errorf("run over a deleted file: exit %d\n%s%s", code, out, errOut)
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); got != "ONE\n" {
		t.Errorf("notes.txt = %q, want the run's file written back", got)
	}
	if code, out, errOut := changes(t, "--root", root, "--keep", "--conflicts=theirs", id, "other.txt"); code != 0 {
		t.Errorf("theirs over a deleted file: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "other.txt")); !os.IsNotExist(err) {
		t.Errorf("theirs re-created other.txt (stat: %v)", err)
	}
	if code, out, _ := changes(t, "--root", root, id); code != 1 {
		t.Errorf("the run is still pending: exit %d\n%s", code, out)
	}
}

// --conflicts goes with --keep only, and takes a known name.
func TestChangesConflictsUsage(t *testing.T) {
	for _, args := range [][]string{{"--conflicts=both"}, {"--discard", "--conflicts=run"}} {
		if code, _, errOut := changes(t, args...); code != 2 || !strings.Contains(errOut, "it goes with --keep") {
			t.Errorf("%v: exit %d, want 2 saying it goes with --keep\n%s", args, code, errOut)
		}
	}
	if code, _, errOut := changes(t, "--keep", "--conflicts=mine"); code != 2 || !strings.Contains(errOut, "both, theirs, run or markers") {
		t.Errorf("--conflicts=mine: exit %d, want 2 naming the valid ones\n%s", code, errOut)
	}
}
