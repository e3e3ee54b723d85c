package shell

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// runWatched runs line in in, watched, through an Output, and returns
// the output, the exit code and the footer's note.
func runWatched(t *testing.T, in Interpreter, line string, max int) (string, int, string) {
	t.Helper()
	watched, w := in.Watch(line)
	argv := in.Argv(watched)
	cmd := exec.Command(argv[0], argv[1:]...)
	out := NewOutput(max)
	w.Attach(out)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code, w.Note()
}

// TestWatchJoiners: whatever joins a line's commands (`|`, `&&`, `||`,
// `;`, a subshell, a group), each that failed is named with its status,
// while the line's exit code and output stay the shell's own.
func TestWatchJoiners(t *testing.T) {
	bash := Interpreter{Path: testenv.NeedsTool(t, "bash", "lines run in bash", "apt-get install bash"), Bash: true}
	for _, c := range []struct {
		line, out string
		code      int
		note      string
	}{
		// The recorded case: a list around a pipeline.
		{"true && sh -c 'echo FAIL; exit 1' 2>&1 | tail -30", "FAIL\n", 0, "failed: sh …=1"},
		{"sh -c 'exit 3' | cat", "", 0, "failed: sh …=3"},
		{"false && echo no", "", 1, "failed: false=1"},
		{"false || echo yes", "yes\n", 0, "failed: false=1"},
		{"sh -c 'exit 2'; echo after", "after\n", 0, "failed: sh …=2"},
		{"(cd /; sh -c 'exit 4'); echo after", "after\n", 0, "failed: sh …=4"},
		{"{ false; echo grouped; } | cat", "grouped\n", 0, ""}, // the group is one pipeline stage: 0
		{"echo a && (false || sh -c 'exit 5') | cat", "a\n", 0, "failed: (…)=5"},
		{"echo a; echo b | cat", "a\nb\n", 0, ""},
		{"cat <<EOF | grep -c x && false\nx\nEOF", "1\n", 1, "failed: false=1"},
		{"for i in 1 2; do false; done; echo $LINENO", "1\n", 0, ""}, // loops are not watched
		// A writer whose reader stopped early (SIGPIPE, 141) is no failure;
		// the last command's own 141 is.
		{"yes | head -1", "y\n", 0, ""},
		{"yes | head -1 | sh -c 'cat; exit 141'", "y\n", 141, "failed: sh …=141"},
		{"yes | sh -c 'head -1; exit 2'", "y\n", 2, "failed: sh …=2"},
		// The line's own reading of the statuses is its own.
		{"sh -c 'exit 3' | cat; echo rc=${PIPESTATUS[0]}; false; echo $?", "rc=3\n1\n", 0, ""},
	} {
		out, code, note := runWatched(t, bash, c.line, 30000)
		if out != c.out || code != c.code || note != c.note {
			t.Errorf("%q: output %q, exit %d, note %q; want %q, %d, %q", c.line, out, code, note, c.out, c.code, c.note)
		}
	}
}

// TestWatchNotWatched: a single command, a line that does not parse and
// a background pipeline run as written.
func TestWatchNotWatched(t *testing.T) {
	bash := Interpreter{Path: "/bin/bash", Bash: true}
	for _, line := range []string{"go test ./...", "if true; then", "a | b &", "x=1", "! a | b"} {
		if run, w := bash.Watch(line); run != line || w != nil {
			t.Errorf("%q: watched as %q", line, run)
		}
	}
}

// TestWatchReportsSurviveTheCut: a report in the middle of a long
// output, which the Output drops, still reaches the note, and a line
// that redirects its own stderr gets none of it in its file.
func TestWatchReportsSurviveTheCut(t *testing.T) {
	bash := Interpreter{Path: testenv.NeedsTool(t, "bash", "lines run in bash", "apt-get install bash"), Bash: true}
	out, code, note := runWatched(t, bash, "seq 1 5000; sh -c 'exit 6'; seq 1 5000", 200)
	if code != 0 || note != "failed: sh …=6" || strings.Contains(out, "cb-ls:status") || !strings.Contains(out, "elided") {
		t.Errorf("exit %d, note %q, output %q", code, note, out)
	}
	dir := t.TempDir()
	out, _, note = runWatched(t, bash, fmt.Sprintf("exec 2>%s/log; sh -c 'echo out; exit 4' | cat", dir), 30000)
	log, _ := exec.Command("cat", dir+"/log").Output()
	if out != "out\n" || note != "failed: sh …=4" || len(log) != 0 {
		t.Errorf("exec 2>: output %q, note %q, log %q", out, note, log)
	}
}

// TestWatchPOSIX: under sh the footer says only a pipeline's last
// status is known; a list without a pipeline gets no caveat.
func TestWatchPOSIX(t *testing.T) {
	in := Interpreter{Path: testenv.NeedsTool(t, "dash", "pipelines run in dash", "apt-get install dash")}
	out, code, note := runWatched(t, in, "false | cat", 30000)
	if out != "" || code != 0 || note != "ran in /bin/sh (no bash): a pipeline's status is its last command's" {
		t.Errorf("output %q, exit %d, note %q", out, code, note)
	}
	if _, w := in.Watch("false; true"); w != nil {
		t.Errorf("a list without a pipeline is watched under sh")
	}
}
