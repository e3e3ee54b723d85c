package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// pendingRun runs turns (then "Done.") with cb-ls run in root, without
// a terminal and without --yes, so what the run changed stays pending;
// it returns the run's stderr. root is runEnv's, or empty for a new one.
func pendingRun(t *testing.T, root string, calls ...agenttest.ToolCall) (string, string) {
	t.Helper()
	var turns []agenttest.Turn
	for _, c := range calls {
		turns = append(turns, agenttest.CallTurn(c))
	}
	srv := agenttest.NewServer(t, agenttest.Script{Turns: append(turns, agenttest.TextTurn("Done."))})
	if fresh := runEnv(t, srv, "openai"); root == "" {
		root = fresh
	}
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return false }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "change things"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("cb-ls run: exit %d\n%s", code, stderr.String())
	}
	return root, stderr.String()
}

// changes runs cb-ls changes with args and returns its exit status,
// stdout and stderr.
func changes(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(append([]string{"changes"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// runIDIn is the run id the end-of-run line of cb-ls run names.
func runIDIn(t *testing.T, stderr string) string {
	t.Helper()
	_, after, ok := strings.Cut(stderr, "cb-ls changes --keep ")
	if !ok {
		t.Fatalf("no run id in:\n%s", stderr)
	}
	id, _, _ := strings.Cut(after, "`")
	return id
}

func writeCall(path, content string) agenttest.ToolCall {
	return agenttest.Call("write_file", map[string]any{"path": path, "content": content})
}

// Flags after the run id are flags, not file names: the trailing --keep
// keeps; an unknown flag or a word naming nothing pending is refused,
// never a listing that exits 0 with nothing done.
func TestChangesFlagsAfterRunID(t *testing.T) {
	needsLayer(t)
	root, stderr := pendingRun(t, "", writeCall("a.txt", "a\n"), writeCall("b.txt", "b\n"))
	id := runIDIn(t, stderr)

	if code, out, errOut := changes(t, id, "--root", root, "--bogus"); code != 2 || !strings.Contains(errOut, "usage: cb-ls changes") {
		t.Errorf("unknown flag after the run id: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := changes(t, id, "nothere.txt", "--root", root, "--keep"); code == 0 || !strings.Contains(errOut, "nothere.txt") {
		t.Errorf("a file that matches nothing: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := changes(t, "--root", root, id, "nothere.txt"); code == 0 || !strings.Contains(errOut, "nothere.txt") {
		t.Errorf("listing a file that matches nothing: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused keep wrote a.txt (stat: %v)", err)
	}
	// A listing of one file shows that file only.
	code, out, errOut := changes(t, id, "b.txt", "--root", root)
	if code != 0 || !strings.Contains(out, "b.txt (created)") || strings.Contains(out, "a.txt") {
		t.Errorf("cb-ls changes %s b.txt: exit %d\n%s%s", id, code, out, errOut)
	}
	code, out, errOut = changes(t, id, "a.txt", "--keep", "--root", root)
	if code != 0 {
		t.Fatalf("cb-ls changes %s a.txt --keep: exit %d\n%s%s", id, code, out, errOut)
	}
	if got := readOr(t, filepath.Join(root, "a.txt")); got != "a\n" {
		t.Errorf("a.txt after the trailing --keep = %q\n%s", got, out)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("keeping a.txt wrote b.txt too (stat: %v)", err)
	}
	if code, out, errOut := changes(t, id, "--root", root, "--keep"); code != 0 || readOr(t, filepath.Join(root, "b.txt")) != "b\n" {
		t.Errorf("cb-ls changes %s --keep: exit %d, b.txt %q\n%s%s", id, code, readOr(t, filepath.Join(root, "b.txt")), out, errOut)
	}
}

// A listing cuts a long hunk and says how to see it whole; --diff
// prints every line of it.
func TestChangesDiffShowsHunksWhole(t *testing.T) {
	needsLayer(t)
	var long strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	root, stderr := pendingRun(t, "", writeCall("long.txt", long.String()))
	id := runIDIn(t, stderr)

	code, out, errOut := changes(t, "--root", root)
	if code != 0 || !strings.Contains(out, "+… (20 more lines") || !strings.Contains(out, "--diff") || strings.Contains(out, "+line 60\n") {
		t.Fatalf("the cut listing: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = changes(t, id, "--diff", "--root", root)
	if code != 0 || strings.Contains(out, "more lines") {
		t.Fatalf("--diff: exit %d\n%s%s", code, out, errOut)
	}
	for i := 1; i <= 60; i++ {
		if !strings.Contains(out, fmt.Sprintf("+line %d\n", i)) {
			t.Fatalf("--diff lacks +line %d:\n%s", i, out)
		}
	}
	if code, _, errOut := changes(t, "--diff", "--keep", "--root", root); code != 2 {
		t.Errorf("--diff --keep: exit %d, want 2\n%s", code, errOut)
	}
}

// An ignored file a command wrote is a group of one: it is shown as the
// file, never as a folder.
func TestChangesGroupOfOneFileIsAFile(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := runEnv(t, srv, "openai")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("Cargo.lock\nbuild/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := pendingRun(t, root,
		agenttest.Call("exec", map[string]any{"command": "printf 'lock\\n' > Cargo.lock && mkdir build && printf x > build/out.o", "write": true, "reason": "build"}))
	code, out, errOut := changes(t, "--root", root)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s\nthe run:\n%s", code, out, errOut, stderr)
	}
	t.Logf("the listing:\n%s", out)
	if strings.Contains(out, "Cargo.lock/") || !strings.Contains(out, "\nCargo.lock (") {
		t.Errorf("Cargo.lock is not shown as a file:\n%s", out)
	}
	if !strings.Contains(out, "\nbuild/ (created, 1 file;") {
		t.Errorf("build/ is not shown as a folder of one file:\n%s", out)
	}
}

// With two runs pending and no run id (two agents in one checkout), a
// listing lists the runs and an action asks for the run; named, the run
// is acted on.
func TestChangesSeveralRunsNeedTheRunID(t *testing.T) {
	needsLayer(t)
	root, first := pendingRun(t, "", writeCall("one.txt", "one\n"))
	_, second := pendingRun(t, root, writeCall("two.txt", "two\n"))
	id1, id2 := runIDIn(t, first), runIDIn(t, second)
	if id1 == id2 {
		t.Fatalf("both runs are %s", id1)
	}
	code, out, errOut := changes(t, "--root", root)
	if code != 0 || !strings.Contains(out, "2 runs have pending changes") || !strings.Contains(out, id1) || !strings.Contains(out, id2) ||
		!strings.Contains(out, "  cb-ls run  started ") || !strings.Contains(out, "1 change(s) in 1 file(s)") || strings.Contains(out, "one.txt (created)") {
		t.Errorf("listing two runs: exit %d\n%s%s", code, out, errOut)
	}
	for _, action := range []string{"--keep", "--discard"} {
		code, out, errOut := changes(t, action, "--root", root)
		if code != 2 || !strings.Contains(errOut, "name the run") {
			t.Errorf("%s with two runs and no id: exit %d, want 2\n%s%s", action, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "two.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused keep wrote two.txt (stat: %v)", err)
	}
	// A file names one of the runs: the listing lists that run; a keep
	// still asks for it.
	if code, out, errOut := changes(t, "one.txt", "--root", root); code != 0 || !strings.Contains(out, id1) || strings.Contains(out, id2) {
		t.Errorf("listing one.txt with two runs: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := changes(t, "one.txt", "--keep", "--root", root); code != 2 || readOr(t, filepath.Join(root, "one.txt")) == "one\n" {
		t.Errorf("one.txt --keep with two runs and no id: exit %d, want 2\n%s%s", code, out, errOut)
	}
	if code, out, errOut := changes(t, id1, "--keep", "--root", root); code != 0 || readOr(t, filepath.Join(root, "one.txt")) != "one\n" {
		t.Fatalf("keep of run %s: exit %d\n%s%s", id1, code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "two.txt")); !os.IsNotExist(err) {
		t.Errorf("keeping run %s wrote the other run's two.txt (stat: %v)", id1, err)
	}
	// One run is left: it is acted on without its id.
	if code, out, errOut := changes(t, "--keep", "--root", root); code != 0 || readOr(t, filepath.Join(root, "two.txt")) != "two\n" {
		t.Errorf("keep of the one run left: exit %d\n%s%s", code, out, errOut)
	}
}

// stdin /dev/null (a CI job's) is a character device but no terminal:
// the end of cb-ls run asks nothing and says in one line how to keep or
// discard the changes later.
func TestRunEndAsksNothingWithoutTerminal(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, editsScript())
	root := runEnv(t, srv, "openai")
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "fix Add"}, null, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "[k]eep all") || strings.Contains(stderr.String(), "? ") {
		t.Errorf("asked with stdin %s:\n%s", os.DevNull, stderr.String())
	}
	var told []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "cb-ls changes") {
			told = append(told, l)
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], "--keep") || !strings.Contains(told[0], "--discard") {
		t.Errorf("want one line saying how to keep or discard later, got %q\n%s", told, stderr.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); got != calcSrc {
		t.Errorf("calc.go changed on disk:\n%s", got)
	}
}

// evilName would clear the screen and forge a listing line if printed
// raw. The tools refuse such a name; a command can still make it.
const evilName = "evil\x1b[2J\nforged.txt (created)\n.txt"

// evilCall makes a file named evilName with a command (the command
// line itself holds no control character).
var evilCall = agenttest.Call("exec", map[string]any{
	"command": `printf 'boo\n' > "$(printf 'evil\033[2J\nforged.txt (created)\n.txt')"`, "write": true, "reason": "test"})

// noRawName fails when out holds evilName's escape or its forged line,
// or (named) lacks the name escaped.
func noRawName(t *testing.T, what, out string, named bool) {
	t.Helper()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\nforged.txt (created)\n") {
		t.Errorf("%s prints the name raw:\n%q", what, out)
	}
	if named && !strings.Contains(out, `"evil\x1b[2J\nforged.txt (created)\n.txt"`) {
		t.Errorf("%s does not show the name escaped:\n%q", what, out)
	}
}

// A file name with an escape sequence and newlines is printed escaped
// wherever cb-ls names it: the run's progress lines and end-of-run
// question, and the listing of cb-ls changes.
func TestChangesNamesAreEscaped(t *testing.T) {
	needsLayer(t)
	root, stderr := pendingRun(t, "", evilCall)
	noRawName(t, "cb-ls run's progress", stderr, false)
	// The tools refuse the name, but the progress line names the call.
	_, stderr = pendingRun(t, "", writeCall(evilName, "boo\n"))
	noRawName(t, "the progress line of a write_file", stderr, true)
	code, out, errOut := changes(t, "--root", root)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	noRawName(t, "cb-ls changes", out, true)

	// The end-of-run question on a terminal (a pipe stands in), left
	// pending.
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.CallTurn(evilCall), agenttest.TextTurn("Done.")}})
	root = runEnv(t, srv, "openai")
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = old })
	var so, se strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "write it"}, strings.NewReader("l\n"), &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	if !strings.Contains(se.String(), "[k]eep all") {
		t.Fatalf("no end-of-run question:\n%s", se.String())
	}
	noRawName(t, "the end-of-run question", se.String(), true)
}
