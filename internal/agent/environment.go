package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Environment is what the system prompt says about where the run
// happens: the model cannot find the date or the branch on its own
// without spending a turn on exec.
type Environment struct {
	// Headless is true for a run from the command line (cb-ls run), where
	// there is no editor and no one reviews each change as it comes.
	Headless bool
	OS       string // runtime.GOOS
	Date     string // YYYY-MM-DD
	// Branch is the repository's current branch ("" outside a
	// repository; "detached at <commit>" for a detached HEAD). Dirty says
	// whether tracked files have changes not committed.
	Branch string
	Dirty  bool
}

// line is the environment as one line of the system prompt.
func (e Environment) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Environment: %s", e.OS)
	if e.Date != "" {
		fmt.Fprintf(&b, ", date %s", e.Date)
	}
	switch {
	case e.Branch == "":
		b.WriteString(", not a git repository")
	case e.Dirty:
		fmt.Fprintf(&b, ", git branch %s with uncommitted changes", e.Branch)
	default:
		fmt.Fprintf(&b, ", git branch %s, clean", e.Branch)
	}
	return b.String()
}

// gitStatusTimeout bounds the one git call a run makes: a huge
// repository must not hold the run back; the line then names the branch
// only.
const gitStatusTimeout = 2 * time.Second

// detectEnvironment fills the environment of a run in workRoot.
func detectEnvironment(ctx context.Context, workRoot string, headless bool) Environment {
	env := Environment{Headless: headless, OS: runtime.GOOS, Date: time.Now().Format(time.DateOnly)}
	if workRoot == "" {
		return env
	}
	env.Branch, env.Dirty = gitState(ctx, workRoot)
	return env
}

// gitState returns the branch of the repository holding dir and whether
// its tracked files have changes. It asks git (status --porcelain -b,
// untracked files left out for speed); without git it reads HEAD.
func gitState(ctx context.Context, dir string) (branch string, dirty bool) {
	ctx, cancel := context.WithTimeout(ctx, gitStatusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "--no-optional-locks", "status", "--porcelain=v1", "-b", "--untracked-files=no")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		return headBranch(dir), false
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	return parseStatusBranch(first), strings.TrimSpace(rest) != ""
}

// parseStatusBranch reads the "## main...origin/main [ahead 1]" line of
// git status -b.
func parseStatusBranch(line string) string {
	line = strings.TrimPrefix(line, "## ")
	switch {
	case strings.HasPrefix(line, "No commits yet on "):
		return strings.TrimPrefix(line, "No commits yet on ")
	case strings.HasPrefix(line, "HEAD (no branch)"):
		return "detached HEAD"
	}
	name, _, _ := strings.Cut(line, "...")
	name, _, _ = strings.Cut(name, " ")
	return name
}

// headBranch reads the branch from .git/HEAD in dir or a parent, for a
// machine without git.
func headBranch(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, ".git", "HEAD"))
		if err == nil {
			head := strings.TrimSpace(string(data))
			if ref, ok := strings.CutPrefix(head, "ref: refs/heads/"); ok {
				return ref
			}
			return "detached HEAD"
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
