package main

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/hostile"
)

// TestPlantedSetsThroughTheCommandLine: in a cloned project that ships
// change sets in the old in-project place, cb-ls changes (listing,
// --keep, --discard) and cb-ls run touch nothing outside the workspace,
// act on no planted set, and say once that they are not read.
func TestPlantedSetsThroughTheCommandLine(t *testing.T) {
	root := t.TempDir()
	victims := hostile.PlantOldSets(t, root)
	before := map[string]string{}
	for _, v := range victims {
		b, _ := os.ReadFile(v)
		before[v] = string(b)
	}
	var told int
	for _, args := range [][]string{
		{"changes", "--root", root},
		{"changes", "--root", root, "--keep"},
		{"changes", "--root", root, "--discard"},
		{"changes", "--root", root, "r2", "--keep"},
		{"run", "--root", root, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "fix it"},
	} {
		var out, errOut strings.Builder
		code := run(args, strings.NewReader(""), &out, &errOut)
		if strings.Contains(errOut.String(), ".catbuddy/runs/") {
			told++
		}
		if strings.Contains(out.String()+errOut.String(), "Fix the failing test") {
			t.Errorf("%v presents a planted set (exit %d):\n%s%s", args, code, out.String(), errOut.String())
		}
		if strings.HasPrefix(args[0], "changes") && strings.Contains(out.String(), "kept") {
			t.Errorf("%v kept something:\n%s", args, out.String())
		}
		for _, v := range victims {
			if b, err := os.ReadFile(v); err != nil || string(b) != before[v] {
				t.Fatalf("after %v: %s = %q, %v; want it untouched", args, v, b, err)
			}
		}
	}
	if told != 1 {
		t.Errorf("told of the old directories %d times, want once", told)
	}
}
