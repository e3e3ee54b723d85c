package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// gitRepo makes a repository on branch "feature" with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	testenv.NeedsTool(t, "git", "the environment line's branch", "apt-get install git")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t.invalid"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("commit", "-q", "-m", "first")
	return dir
}

// TestSystemPromptEnvironment: a headless run's system prompt names the
// OS, the date and the branch with its state, does not speak of an
// editor, and does not list the tools the request defines anyway.
func TestSystemPromptEnvironment(t *testing.T) {
	dir := gitRepo(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "clean"}, {Text: "dirty"}}})
	tt := newTestTools(t)
	r := &Runner{Registry: tt.reg, Config: mode{"openai", true}.config(srv), WorkRoot: func() string { return dir }, Headless: true}
	if _, err := r.Run(t.Context(), Task{Command: config.CommandRun, Input: "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Headless = false
	if _, err := r.Run(t.Context(), Task{Command: config.CommandAsk, Input: "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	clean, dirty := reqs[0].System(), reqs[1].System()
	date := time.Now().Format(time.DateOnly)
	if want := "Environment: " + runtime.GOOS + ", date " + date + ", git branch feature, clean"; !strings.Contains(clean, want) {
		t.Errorf("headless system prompt lacks %q:\n%s", want, clean)
	}
	if strings.Contains(clean, "editor") || !strings.Contains(clean, "command line") {
		t.Errorf("headless system prompt speaks of an editor:\n%s", clean)
	}
	if want := "git branch feature with uncommitted changes"; !strings.Contains(dirty, want) || !strings.Contains(dirty, "inside the user's editor") {
		t.Errorf("editor system prompt lacks %q or the editor:\n%s", want, dirty)
	}
	for _, name := range []string{"- echo:", "Echo the text back", "Tools:"} {
		if strings.Contains(clean, name) {
			t.Errorf("system prompt repeats the tool definitions (%q):\n%s", name, clean)
		}
	}
}

func TestEnvironmentOutsideARepository(t *testing.T) {
	env := detectEnvironment(t.Context(), t.TempDir(), false)
	if got := env.line(); !strings.HasSuffix(got, ", not a git repository") || env.Dirty {
		t.Errorf("line = %q", got)
	}
}

func TestParseStatusBranch(t *testing.T) {
	for line, want := range map[string]string{
		"## main...origin/main [ahead 1]": "main",
		"## main":                         "main",
		"## No commits yet on trunk":      "trunk",
		"## HEAD (no branch)":             "detached HEAD",
	} {
		if got := parseStatusBranch(line); got != want {
			t.Errorf("parseStatusBranch(%q) = %q, want %q", line, got, want)
		}
	}
}
