package main

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestRunLeavesNothingInTheProject: a run that leaves a pending set and
// a transcript writes nothing into the project: the tree holds the
// user's files only, and git status (ignored files included) is as
// before. cb-ls changes then finds the set from the state directory and
// keeps it.
func TestRunLeavesNothingInTheProject(t *testing.T) {
	needsLayer(t)
	git := testenv.NeedsTool(t, "git", "comparing git status before and after a run", "apt-get install git")
	srv := agenttest.NewServer(t, editsScript())
	root := runEnv(t, srv, "openai")
	gitRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q")
	list := func() []string {
		var out []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if rel, _ := filepath.Rel(root, p); rel != "." {
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		return out
	}
	before, status := list(), gitRun("status", "--porcelain", "--ignored", "--untracked-files=all")
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return false }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "fix Add"}, strings.NewReader(""), &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if after := list(); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("the project holds %q after the run, was %q", after, before)
	}
	if after := gitRun("status", "--porcelain", "--ignored", "--untracked-files=all"); after != status {
		t.Errorf("git status after the run:\n%s\nbefore:\n%s", after, status)
	}
	if mds, _ := filepath.Glob(filepath.Join(sessionsOf(t, root), "*.md")); len(mds) != 1 {
		t.Errorf("transcripts in the state directory: %v, want one", mds)
	}
	var out, errs strings.Builder
	if code := run([]string{"changes", "--root", root, "--keep"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("cb-ls changes --keep: exit %d\n%s%s", code, out.String(), errs.String())
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); got != "notes\n" {
		t.Errorf("notes.txt after keep = %q", got)
	}
}

// TestProjectToolsSeeNoPendingCopies: a test runner that walks the tree
// (node --test finds every *.test.js) runs the user's tests only, not
// the pending copies of a run's: those live in the state directory.
func TestProjectToolsSeeNoPendingCopies(t *testing.T) {
	needsLayer(t)
	node := testenv.NeedsTool(t, "node", "running node --test in a project with pending changes", "apt-get install nodejs")
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "b.test.js", "content": "require('node:test')('pending', () => { throw new Error('a pending test ran') })\n"})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	if err := os.WriteFile(filepath.Join(root, "a.test.js"), []byte("require('node:test')('mine', () => {})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return false }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "add a test"}, strings.NewReader(""), &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(root, "b.test.js")); !os.IsNotExist(err) {
		t.Fatalf("the pending file reached the project: %v", err)
	}
	cmd := exec.Command(node, "--test")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "# tests 1") || strings.Contains(string(out), "pending test ran") {
		t.Errorf("node --test in the project: %v\n%s", err, out)
	}
}
