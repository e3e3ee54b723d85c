package shell

import (
	"path"
	"strings"
)

// runsLaterDirs are workspace directories whose files other programs run
// later, outside any sandbox: git's hooks and config, hook managers,
// editor tasks and settings, dev containers.
var runsLaterDirs = []string{".git", ".husky", ".githooks", ".vscode", ".idea", ".devcontainer", ".zed", ".helix", ".catbuddy"}

// runsLaterFiles are single files of that kind: direnv's .envrc, the
// per-directory configs Neovim and Vim source (exrc) or lazy.nvim loads,
// and commit-hook configurations.
var runsLaterFiles = []string{".envrc", ".nvim.lua", ".nvimrc", ".exrc", ".lazy.lua", ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"}

// runsLaterRootDirs are directories that run only at the root of a
// workspace: CI workflows, which run on the next push, with the
// repository's secrets and outside any sandbox of ours.
var runsLaterRootDirs = []string{".github/workflows"}

// RunsLater reports whether rel, a slash-separated path relative to a
// workspace root, holds content that runs later outside the sandbox (a
// git hook, .git/config's core.fsmonitor, .vscode/tasks.json, .envrc,
// a CI workflow).
// A command that changed such a file must be flagged to the user: its
// effect arrives the next time the user runs git or opens the editor.
func RunsLater(rel string) bool {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	first, _, _ := strings.Cut(rel, "/")
	for _, d := range runsLaterDirs {
		if first == d {
			return true
		}
	}
	for _, d := range runsLaterRootDirs {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	// Anywhere in the tree: a nested repository's .git or an .envrc in
	// a subdirectory runs as well as the root's.
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	base := path.Base(rel)
	for _, f := range runsLaterFiles {
		if base == f {
			return true
		}
	}
	return false
}

// RunsLaterProbes are the files a scan for a command's changes checks
// even where a .gitignore hides them (.envrc usually is): a change to
// them must be flagged. Directories are probed by their usual files.
func RunsLaterProbes() []string {
	return append([]string{".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json"}, runsLaterFiles...)
}
