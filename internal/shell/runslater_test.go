package shell

import "testing"

func TestRunsLater(t *testing.T) {
	for rel, want := range map[string]bool{
		".git/hooks/pre-commit":           true,
		".git/config":                     true,
		"vendor/x/.git/config":            true,
		".vscode/tasks.json":              true,
		".vscode/settings.json":           true,
		".envrc":                          true,
		"sub/.envrc":                      true,
		"./.nvim.lua":                     true,
		".husky/pre-push":                 true,
		".devcontainer/devcontainer.json": true,
		".pre-commit-config.yaml":         true,
		"main.go":                         false,
		"docs/git.md":                     false,
		".github/workflows/ci.yml":        true,
		".github/dependabot.yml":          false,
		"sub/.github/workflows/ci.yml":    false,
		"envrc":                           false,
		".gitignore":                      false,
	} {
		if got := RunsLater(rel); got != want {
			t.Errorf("RunsLater(%q) = %v, want %v", rel, got, want)
		}
	}
}
