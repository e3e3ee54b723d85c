//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nestedRepos adds to c's workspace a nested repository (vendor/lib,
// made by git where it is installed) and a worktree-like checkout
// (sub/wt) whose .git is a file pointing at gitdirs/wt inside the
// workspace, and returns the attack on all three repositories' git
// directories: hooks, config (core.fsmonitor runs whatever it names on
// the user's next git status), the gitdir file itself.
func nestedRepos(t *testing.T, c *sandboxCase) string {
	t.Helper()
	lib := filepath.Join(c.root, "vendor", "lib")
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", lib).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		if err := os.WriteFile(filepath.Join(lib, ".git", "config"), []byte("[core]"), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		writeTestFile(t, filepath.Join(lib, ".git", "config"), "[core]")
	}
	writeTestFile(t, filepath.Join(lib, "lib.go"), "package lib")
	writeTestFile(t, filepath.Join(lib, "src", "a.go"), "package src")
	writeTestFile(t, filepath.Join(c.root, "gitdirs", "wt", "config"), "[core]")
	writeTestFile(t, filepath.Join(c.root, "sub", "wt", ".git"), "gitdir: ../../gitdirs/wt\n")
	writeTestFile(t, filepath.Join(c.root, "sub", "wt", "w.go"), "package wt")
	attack := `git -C vendor/lib config core.fsmonitor 'touch /tmp/pwned' 2>&1; ` +
		`printf '\tfsmonitor = evil\n' >> vendor/lib/.git/config; mkdir -p vendor/lib/.git/hooks; echo '#!/bin/sh' > vendor/lib/.git/hooks/pre-commit; ` +
		`printf '\tfsmonitor = evil\n' >> gitdirs/wt/config; echo 'gitdir: /tmp/evil' > sub/wt/.git; ` +
		`printf '\tfsmonitor = evil\n' >> .git/config; `
	return attack
}

// nestedUntouched checks that no git directory of nestedRepos changed.
func nestedUntouched(c *sandboxCase) {
	c.t.Helper()
	c.fileIs(".git/config", "[core]")
	c.fileIs("vendor/lib/.git/config", "[core]")
	c.fileIs("gitdirs/wt/config", "[core]")
	c.fileIs("sub/wt/.git", "gitdir: ../../gitdirs/wt\n")
	c.absent("vendor/lib/.git/hooks/pre-commit")
}

// TestSandboxNestedGitReadOnly: every git directory in the workspace,
// nested repositories' and the one a .git file points to, is read-only
// to a command that may write the workspace, as the root's is; the
// files beside them stay writable.
func TestSandboxNestedGitReadOnly(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		attack := nestedRepos(t, c)
		w := Policy{WriteWorkspace: true}
		out := c.run(attack+`echo changed > vendor/lib/lib.go; echo new > vendor/lib/src/new.go; echo w > sub/wt/w.go; echo done`, w)
		if !strings.Contains(out, "done") {
			t.Fatalf("the command did not run to its end: %q", out)
		}
		nestedUntouched(c)
		c.fileIs("vendor/lib/lib.go", "changed\n")
		c.fileIs("vendor/lib/src/new.go", "new\n")
		c.fileIs("sub/wt/w.go", "w\n")
		if !splitOnly {
			// With namespaces a file can be created beside a nested .git.
			c.run("echo beside > vendor/lib/beside.txt", w)
			c.fileIs("vendor/lib/beside.txt", "beside\n")
		}
		// With .git writable by the user's approval, the nested ones are too.
		c.run(`printf '\tbare = false\n' >> vendor/lib/.git/config`, Policy{WriteWorkspace: true, WriteGit: true})
		c.fileIs("vendor/lib/.git/config", "[core]\tbare = false\n")
	})
}

// TestLayerNestedGitReadOnly: over the copy-on-write layer the nested
// git directories are read-only in the merged view, so nothing of the
// attack lands on disk or in the layer, and the writes beside them land
// in the layer; a repository the layer itself holds (created by an
// earlier command of the run) is read-only as well.
func TestLayerNestedGitReadOnly(t *testing.T) {
	c, l := newLayerCase(t)
	attack := nestedRepos(t, c)
	if err := l.WriteFile("made/.git/config", []byte("[core]"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := diskState(t, c.root)
	out := c.run(attack+`printf '\tfsmonitor = evil\n' >> made/.git/config; echo changed > vendor/lib/lib.go; echo beside > vendor/lib/beside.txt; echo done`, Policy{WriteWorkspace: true})
	if !strings.Contains(out, "done") {
		t.Fatalf("the command did not run to its end: %q", out)
	}
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, l, "made created", "made/.git created", "made/.git/config created", "vendor/lib/beside.txt created", "vendor/lib/lib.go changed")
	if b, _ := os.ReadFile(filepath.Join(l.Upper, "made", ".git", "config")); string(b) != "[core]" {
		t.Errorf("the layer's own repository's config changed: %q", b)
	}
}

// TestGitDirsFound: the walk finds the root's, nested and pointed-to
// git directories, and the .git files themselves, and does not descend
// into a git directory or into .catbuddy/.
func TestGitDirsFound(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	for _, p := range []string{".git/config", ".git/modules/m/.git/config", "a/b/.git/config", "a/b/c/.git/HEAD", ".catbuddy/x/.git/config", "gd/wt/config", outside + "/wt2/config"} {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		writeTestFile(t, p, "x")
	}
	writeTestFile(t, filepath.Join(root, "w1", ".git"), "gitdir: ../gd/wt\n")
	writeTestFile(t, filepath.Join(root, "w2", ".git"), "gitdir: "+outside+"/wt2\n")
	writeTestFile(t, filepath.Join(root, "w3", ".git"), "not a gitdir file\n")
	got := gitDirs([]string{root})
	want := []string{".git", "a/b/.git", "a/b/c/.git", "gd/wt", "w1/.git", "w2/.git", "w3/.git"}
	for i := range want {
		want[i] = filepath.Join(root, want[i])
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("gitDirs:\n got  %q\n want %q", got, want)
	}
}

// TestGitDirsCost measures the walk on a tree of 200,000 files (run
// with CB_LS_GITDIRS_COST=1): it is what every confined command that
// may write the workspace pays in Prepare.
func TestGitDirsCost(t *testing.T) {
	if os.Getenv("CB_LS_GITDIRS_COST") == "" {
		t.Skip("set CB_LS_GITDIRS_COST=1 to measure the walk on 200,000 files")
	}
	root := t.TempDir()
	files := 0
	for d := 0; files < 200000; d++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d/100), fmt.Sprintf("sub%03d", d%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 20; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			files++
		}
		if d%1000 == 0 {
			if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitDirs([]string{root}) // the page cache warm, as for every later command
	const n = 5
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	var found int
	for range n {
		found = len(gitDirs([]string{root}))
	}
	wall := time.Since(start) / n
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / n
	t.Logf("gitDirs over %d files: %v wall, %v CPU per walk, %d git directories", files, wall, cpu, found)
}
