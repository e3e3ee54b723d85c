package shell

import (
	"strings"
	"testing"
)

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
		"sub/.Git/config":                 true,
		".ENVRC":                          true,
		".gitattributes":                  true,
		"lib/.gitmodules":                 true,
		".gitlab-ci.yml":                  true,
		"sub/.gitlab-ci.yml":              false,
		".vscode/launch.json":             true,
	} {
		if got := RunsLater(rel); got != want {
			t.Errorf("RunsLater(%q) = %v, want %v", rel, got, want)
		}
	}
}

// Every path that runs later says why, in words a review can show.
func TestRunsLaterReason(t *testing.T) {
	for rel, want := range map[string]string{
		"sub/.envrc":                 "direnv loads it on cd",
		"a/.git/hooks/post-checkout": "git runs its hooks",
		".github/workflows/ci.yml":   "GitHub Actions runs it on the next push",
		"main.go":                    "",
	} {
		got := RunsLaterReason(rel)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("RunsLaterReason(%q) = %q, want %q", rel, got, want)
		}
	}
}
