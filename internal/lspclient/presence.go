package lspclient

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// The four language tools' definitions cost about 2.3 KB in every
// request of a run. A configured server whose language the workspace
// does not contain would never be asked, so a run only offers the tools
// when the workspace has a file some server answers for, and starts
// those servers at once: they load the project while the model reads
// the task, and one that cannot start is named before its tools are
// relied on.

// maxPresenceEntries bounds the directory entries Present looks at.
const maxPresenceEntries = 50000

// skippedDirs are never searched for a language's files: dependencies,
// version control and build output hold files no question is about.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true, ".git": true, ".catbuddy": true,
	"dist": true, "build": true, "target": true, "__pycache__": true, ".venv": true, "venv": true}

// Present returns the configured servers (sorted) that answer for some
// file of the workspace.
func (c *Client) Present(ctx context.Context) []string {
	if c == nil {
		return nil
	}
	want := map[string]bool{}
	for n := range c.opts.Servers {
		want[n] = true
	}
	found := map[string]bool{}
	seen := 0
	for _, root := range c.opts.Roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return filepath.SkipDir
			}
			if seen++; seen > maxPresenceEntries || len(found) == len(want) {
				return filepath.SkipAll
			}
			if d.IsDir() {
				if path != root && (skippedDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if n := c.serverFor(path); n != "" {
				found[n] = true
			}
			return nil
		})
	}
	var out []string
	for n := range found {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Start starts the named servers in the background, until Close; a
// failure is told through Options.OnStatus and withdraws the server, as
// on a question.
func (c *Client) Start(names []string) {
	if c == nil {
		return
	}
	go func() {
		for _, n := range names {
			if c.life.Err() != nil {
				return
			}
			_, _ = c.get(c.life, n)
		}
	}()
}
