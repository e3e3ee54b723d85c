package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindInterpreter: bash is the first executable bash in an absolute
// PATH entry; relative entries, directories and files without the
// execute bit named bash are passed over; without one, /bin/sh.
func TestFindInterpreter(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("noexec/bash", 0o644)
	os.MkdirAll(filepath.Join(dir, "isdir", "bash"), 0o755)
	good := mk("good/bash", 0o755)
	later := mk("later/bash", 0o755)
	mk("rel/bash", 0o755)
	t.Chdir(dir)
	join := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }

	for _, c := range []struct {
		path string
		want Interpreter
	}{
		{join("rel", filepath.Join(dir, "noexec"), filepath.Join(dir, "isdir"), filepath.Join(dir, "good"), filepath.Join(dir, "later")), Interpreter{Path: good, Bash: true}},
		{join(filepath.Join(dir, "later"), filepath.Join(dir, "good")), Interpreter{Path: later, Bash: true}},
		{join("rel", filepath.Join(dir, "noexec")), Interpreter{Path: "/bin/sh"}},
		{"", Interpreter{Path: "/bin/sh"}},
	} {
		if got := FindInterpreter(c.path); got != c.want {
			t.Errorf("FindInterpreter(%q) = %+v, want %+v", c.path, got, c.want)
		}
	}
	if got := (Interpreter{Path: good, Bash: true}).Argv("echo hi"); strings.Join(got, "|") != good+"|-c|echo hi" {
		t.Errorf("Argv = %q", got)
	}
}
