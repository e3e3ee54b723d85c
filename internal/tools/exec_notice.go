package tools

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A cold Go build cache (the sandbox could not overlay the user's)
// makes the first build slow, and a model that is not told may take a
// slow `go test` for a hang. It matters once: the private cache
// persists and warms with that build, and outside Go projects it does
// not matter at all. So the notice comes once per run, on the first
// command that runs the go tool in a Go project, and never as part of
// the command's own output.

// runsGo matches a line that runs the go tool: "go" as a command word.
var runsGo = regexp.MustCompile(`(^|[\s;&|(!])go\s`)

// goCacheNotice is the line the result gets about a cold build cache
// (cold: sandbox.Run.GoCacheCold), or "".
func (tc *ToolContext) goCacheNotice(ctx context.Context, line, cwd, cold string) string {
	if cold == "" || !runsGo.MatchString(line) || !inGoProject(cwd, tc.WorkRoot()) {
		return ""
	}
	if !tc.FileStates(ctx).FirstTime("exec go build cache cold") {
		return ""
	}
	slog.Info("exec: the Go build cache started cold", "why", cold)
	return "[Go's build cache started cold: this build fills it, later ones are fast]\n"
}

// inGoProject reports whether dir, or a folder above it up to root,
// holds a go.mod or go.work.
func inGoProject(dir, root string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		for _, f := range []string{"go.mod", "go.work"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				return true
			}
		}
		if d == filepath.Clean(root) || filepath.Dir(d) == d || (root != "" && !strings.HasPrefix(d, filepath.Clean(root))) {
			return false
		}
	}
}
