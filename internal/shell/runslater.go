package shell

import (
	"path"
	"strings"
)

// runsLaterDirs are workspace directories whose files other programs run
// later, outside any sandbox: git's hooks and config, hook managers,
// editor tasks and settings, dev containers. Each has the reason a
// review shows.
var runsLaterDirs = []struct{ dir, why string }{
	{".git", "git runs its hooks and reads its config (core.fsmonitor, filters) on the next git command"},
	{".husky", "husky runs it as a git hook"},
	{".githooks", "git runs it as a hook where core.hooksPath points here"},
	{".vscode", "VS Code runs its tasks, launch configurations and settings"},
	{".idea", "JetBrains IDEs run its run configurations and settings"},
	{".devcontainer", "the dev container runs it when the folder is reopened in it"},
	{".zed", "Zed runs its tasks and settings"},
	{".helix", "Helix loads its configuration"},
	{".catbuddy", "cb-ls reads its own state here"},
}

// runsLaterFiles are single files of that kind, anywhere in the tree:
// direnv's .envrc, the per-directory configs Neovim and Vim source
// (exrc) or lazy.nvim loads, commit-hook configurations, and git's
// per-tree files, which select filter and diff drivers (.gitattributes)
// and the repositories a checkout fetches (.gitmodules).
var runsLaterFiles = []struct{ name, why string }{
	{".envrc", "direnv loads it on cd"},
	{".nvim.lua", "Neovim sources it when it starts here (exrc)"},
	{".nvimrc", "Neovim sources it when it starts here (exrc)"},
	{".exrc", "Vim sources it when it starts here (exrc)"},
	{".lazy.lua", "lazy.nvim loads it when Neovim starts here"},
	{".pre-commit-config.yaml", "pre-commit runs its hooks on the next commit"},
	{"lefthook.yml", "lefthook runs its hooks on the next git command"},
	{".lefthook.yml", "lefthook runs its hooks on the next git command"},
	{".gitattributes", "git runs the filter and diff drivers it names"},
	{".gitmodules", "git fetches and checks out the repositories it names"},
}

// runsLaterRootFiles are files that run only at the root of a
// workspace: CI workflows, which run on the next push, with the
// repository's secrets and outside any sandbox of ours.
var runsLaterRootFiles = []struct{ prefix, why string }{
	{".github/workflows/", "GitHub Actions runs it on the next push"},
	{".gitlab-ci.yml", "GitLab CI runs it on the next push"},
	{".gitlab/ci/", "GitLab CI runs it on the next push"},
}

// RunsLater reports whether rel, a slash-separated path relative to a
// workspace root, holds content that runs later outside the sandbox (a
// git hook, .git/config's core.fsmonitor, .vscode/tasks.json, .envrc,
// a CI workflow).
// A command that changed such a file must be flagged to the user: its
// effect arrives the next time the user runs git or opens the editor.
func RunsLater(rel string) bool { return RunsLaterReason(rel) != "" }

// RunsLaterReason says why rel runs later outside the sandbox ("direnv
// loads it on cd"), or "" when it does not. Names are compared without
// regard to case: on a case-insensitive file system .Git is .git.
func RunsLaterReason(rel string) string {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	lower := strings.ToLower(rel)
	parts := strings.Split(lower, "/")
	for _, d := range runsLaterDirs {
		if parts[0] == d.dir {
			return d.why
		}
	}
	for _, f := range runsLaterRootFiles {
		if lower == f.prefix || strings.HasSuffix(f.prefix, "/") && strings.HasPrefix(lower, f.prefix) {
			return f.why
		}
	}
	// Anywhere in the tree: a nested repository's .git or an .envrc in
	// a subdirectory runs as well as the root's.
	for _, part := range parts {
		if part == ".git" {
			return runsLaterDirs[0].why
		}
	}
	base := parts[len(parts)-1]
	for _, f := range runsLaterFiles {
		if base == f.name {
			return f.why
		}
	}
	return ""
}

// RunsLaterProbes are the files a scan for a command's changes checks
// even where a .gitignore hides them (.envrc usually is): a change to
// them must be flagged. Directories are probed by their usual files.
func RunsLaterProbes() []string {
	out := []string{".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json"}
	for _, f := range runsLaterFiles {
		out = append(out, f.name)
	}
	return out
}
