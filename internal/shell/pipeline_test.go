package shell

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// TestLastPipeline: only a line whose last statement is a plain pipeline
// is watched, and its commands are named as the footer shows them.
func TestLastPipeline(t *testing.T) {
	bash := Interpreter{Path: "/bin/bash", Bash: true}
	for _, c := range []struct {
		line  string
		names []string // nil: not watched
	}{
		{"go test ./... | tail -15", []string{"go test …", "tail"}},
		{"cd x && make; grep -c foo f.txt | sort -n | head -3", []string{"grep …", "sort", "head"}},
		{"FOO=1 pytest -q tests/ |& tee $TMPDIR/log", []string{"pytest …", "tee …"}},
		{"(cd a; make) | cat", []string{"(…)", "cat"}},
		{"go test ./...", nil},
		{"a | b && c", nil},
		{"! a | b", nil},
		{"a | b &", nil},
		{"a | b; exit 3", nil},
		{"if true; then", nil}, // does not parse: run as written
	} {
		run, p := bash.LastPipeline(c.line)
		if c.names == nil {
			if p != nil || run != c.line {
				t.Errorf("%q: watched as %q (%+v)", c.line, run, p)
			}
			continue
		}
		if p == nil {
			t.Errorf("%q: not watched", c.line)
			continue
		}
		if diff := cmp.Diff(c.names, p.Names); diff != "" {
			t.Errorf("%q: names (-want +got):\n%s", c.line, diff)
		}
	}
}

// TestPipelineStatuses runs watched lines in bash and in dash: bash
// reports each command's status without changing the line's exit code
// or its output; under sh the footer says only the last status is known.
func TestPipelineStatuses(t *testing.T) {
	sh := func(t *testing.T, name string) Interpreter {
		p := testenv.NeedsTool(t, name, "pipelines run in "+name, "apt-get install "+name)
		return Interpreter{Path: p, Bash: name == "bash"}
	}
	run := func(t *testing.T, in Interpreter, line string) (string, int, *Pipeline, []int) {
		t.Helper()
		watched, p := in.LastPipeline(line)
		argv := in.Argv(watched)
		cmd := exec.Command(argv[0], argv[1:]...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		text, st := p.Take(string(out))
		return text, code, p, st
	}
	t.Run("bash", func(t *testing.T) {
		in := sh(t, "bash")
		text, code, p, st := run(t, in, "printf 'FAIL\\nok\\n'; exit 1 | tail -1; (echo x; exit 2) | cat | wc -l")
		// The last statement only is watched: the first pipeline's failure is not named.
		if text != "FAIL\nok\n1\n" || code != 0 || !slices.Equal(st, []int{2, 0, 0}) {
			t.Fatalf("output %q, exit %d, statuses %v", text, code, st)
		}
		if got, want := p.Note(st), "pipeline: (…)=2, cat=0, wc=0"; got != want {
			t.Errorf("Note = %q, want %q", got, want)
		}
		text, code, p, st = run(t, in, "printf 'no newline' | cat")
		if text != "no newline" || code != 0 || p.Note(st) != "" || !slices.Equal(st, []int{0, 0}) {
			t.Errorf("success: output %q, exit %d, statuses %v, note %q", text, code, st, p.Note(st))
		}
		// A line that sends its own stderr elsewhere still reports, and
		// its file gets nothing of the report.
		text, _, p, st = run(t, in, "exec 2>/dev/null; sh -c 'echo out; exit 4' | cat")
		if text != "out\n" || p.Note(st) != "pipeline: sh …=4, cat=0" {
			t.Errorf("exec 2>: output %q, note %q", text, p.Note(st))
		}
	})
	t.Run("sh", func(t *testing.T) {
		in := sh(t, "dash")
		text, code, p, st := run(t, in, "false | cat")
		if text != "" || code != 0 || st != nil {
			t.Fatalf("output %q, exit %d, statuses %v", text, code, st)
		}
		if got := p.Note(st); got != "ran in /bin/sh (no bash): a pipeline's status is its last command's" {
			t.Errorf("Note = %q", got)
		}
	})
}
