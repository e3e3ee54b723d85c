package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
)

// editsScript reads and fixes calc.go, then writes notes.txt and .envrc
// (a file that runs later), then answers.
func editsScript() agenttest.Script {
	return agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "notes.txt", "content": "notes\n"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": ".envrc", "content": "export X=1\n"})),
		agenttest.TextTurn("Done."),
	}}
}

// runEdits runs editsScript with stdin as the given input, a terminal or
// not, and returns the workspace, stderr and each tool result the model
// was sent after its call (edit_file, write notes.txt, write .envrc).
func runEdits(t *testing.T, args []string, stdin io.Reader, terminal bool) (root, stderr string, told []string) {
	t.Helper()
	return runEditsIn(t, args, stdin, terminal, false)
}

// runEditsIn is runEdits, with review "before" in the user's settings
// when before is set.
func runEditsIn(t *testing.T, args []string, stdin io.Reader, terminal, before bool) (root, stderr string, told []string) {
	t.Helper()
	srv := agenttest.NewServer(t, editsScript())
	root = runEnv(t, srv, "openai")
	if before {
		reviewBefore(t)
	}
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return terminal }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), append(append([]string{"--root", root}, args...), "fix Add"), stdin, &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5\n%s", len(reqs), errOut.String())
	}
	for _, r := range reqs[2:] {
		res := r.ToolResults()
		told = append(told, res[len(res)-1].Content)
	}
	return root, errOut.String(), told
}

// reviewBefore sets the user's review setting to "before" (each change
// asked before it lands) for the rest of the test; runEnv has given the
// test its own config directory.
func reviewBefore(t *testing.T) {
	t.Helper()
	dir := config.UserDir(os.Getenv)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"review": "before"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readOr(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// With review "before", without a terminal and without --yes nobody
// can be asked: every edit is refused, nothing is written, and the model
// is told why.
func TestRunWithoutTerminalRefusesEdits(t *testing.T) {
	root, stderr, told := runEditsIn(t, nil, strings.NewReader("y\ny\ny\n"), false, true)
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Errorf("calc.go was changed:\n%s", got)
	}
	for _, name := range []string{"notes.txt", ".envrc"} {
		if _, err := os.Stat(filepath.Join(root, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written (stat: %v)", name, err)
		}
	}
	const why = "edit not applied: cb-ls run has no terminal to ask on; rerun with --yes to allow edits"
	for i, s := range told {
		if !strings.Contains(s, why) {
			t.Errorf("tool result %d told the model %q, want %q", i, s, why)
		}
	}
	if strings.Contains(stderr, "[y/N") {
		t.Errorf("asked although there is no terminal:\n%s", stderr)
	}
	if !strings.Contains(stderr, "edit_file failed: Error: "+why) {
		t.Errorf("stderr does not show the refusal:\n%s", stderr)
	}
}

// A multi-file apply_patch is refused whole without a terminal (review
// "before").
func TestRunWithoutTerminalRefusesPatch(t *testing.T) {
	patch := "--- a/calc.go\n+++ b/calc.go\n@@ -1,1 +1,1 @@\n-package calc\n+package calc // patched\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+patched\n"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": patch})),
		agenttest.TextTurn("Not patched."),
	}})
	root := runEnv(t, srv, "anthropic")
	reviewBefore(t)
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "patch"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Errorf("calc.go was changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt was written (stat: %v)", err)
	}
	res := srv.Requests()[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "rerun with --yes to allow edits") {
		t.Errorf("the model was told %+v", res)
	}
}

// --yes writes every edit and names, on stderr, the written files that
// run later; ordinary files are not in that line.
func TestRunYesWritesAndNamesRunsLater(t *testing.T) {
	root, stderr, told := runEdits(t, []string{"--yes"}, strings.NewReader(""), false)
	if got := readOr(t, filepath.Join(root, "calc.go")); !strings.Contains(got, "return a + b") {
		t.Errorf("calc.go:\n%s", got)
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); got != "notes\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if got := readOr(t, filepath.Join(root, ".envrc")); got != "export X=1\n" {
		t.Errorf(".envrc = %q", got)
	}
	for i, s := range told {
		if strings.Contains(s, "not applied") {
			t.Errorf("tool result %d: %q", i, s)
		}
	}
	var summary string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "run later") {
			summary = l
		}
	}
	if !strings.HasPrefix(summary, "cb-ls run: --yes wrote files that run later") || !strings.HasSuffix(summary, ": .envrc") {
		t.Errorf("the runs-later summary is %q:\n%s", summary, stderr)
	}
	if strings.Contains(stderr, "[y/N") {
		t.Errorf("--yes asked:\n%s", stderr)
	}
}

// With review "before", on a terminal each edit is asked about with its diff. "a" says yes to
// the rest of the run, but a file that runs later is still asked about,
// and named as such; "n" leaves it unwritten and the model hears so.
// The terminal is a pipe here (stdinIsTerminal is replaced); the pty
// test checks the detection on a real terminal.
func TestRunTerminalAsksPerEdit(t *testing.T) {
	root, stderr, told := runEditsIn(t, nil, strings.NewReader("a\nn\n"), true, true)
	if n := strings.Count(stderr, "[y/N/a]"); n != 2 {
		t.Errorf("%d questions, want 2 (calc.go, then .envrc):\n%s", n, stderr)
	}
	for _, want := range []string{
		"-\treturn a - b", "+\treturn a + b", "Apply this change to calc.go? [y/N/a]",
		"+export X=1", ".envrc is a file that runs later, outside the sandbox", "Apply this change to .envrc? [y/N/a]",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "Apply this change to notes.txt") {
		t.Errorf("notes.txt was asked about after \"a\":\n%s", stderr)
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); !strings.Contains(got, "return a + b") {
		t.Errorf("calc.go:\n%s", got)
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); got != "notes\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".envrc")); !os.IsNotExist(err) {
		t.Errorf(".envrc was written (stat: %v)", err)
	}
	if !strings.Contains(told[2], "the user rejected the change to .envrc") {
		t.Errorf("the model was told %q for .envrc", told[2])
	}
}

// A terminal that closes (end of input) before the answer means no
// (review "before").
func TestRunTerminalEndOfInputRejects(t *testing.T) {
	root, _, told := runEditsIn(t, nil, strings.NewReader(""), true, true)
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Errorf("calc.go was changed:\n%s", got)
	}
	if !strings.Contains(told[0], "edit not applied: no answer from the user") {
		t.Errorf("the model was told %q", told[0])
	}
}
