package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// ProjectFiles reads project files for the run's own context (rules
// files, @-mentions) through the PathGuard and the workspace, as the
// tools do: editor buffers win over the disk, and nothing outside the
// roots or inside .catbuddy/ is read. tools.ToolContext implements it.
type ProjectFiles interface {
	Resolve(path string) (guard.Path, error)
	ReadText(ctx context.Context, path string) (guard.Path, []byte, error)
}

// RulesCap bounds the rules text put in the system prompt, all files
// together. What the cap cuts is named in the prompt.
const RulesCap = 32 << 10

// ruleNames are the per-directory rules files, first found wins:
// AGENTS.md (the shared convention), else CLAUDE.md.
var ruleNames = []string{"AGENTS.md", "CLAUDE.md"}

// rootOnlyRules is read at a root that has neither of ruleNames.
const rootOnlyRules = ".github/copilot-instructions.md"

// userRulesName is the user-level rules file in the user's config dir.
const userRulesName = "AGENTS.md"

// ruleFile is one rules file as it goes into the prompt.
type ruleFile struct {
	label string // path as shown: relative to the work root, or absolute
	text  string
}

// rules collects a run's rules files: the work root's, the user's, and
// the nearest one above each file the run touches. Files are read anew
// for every run, so edits between runs are picked up.
type rules struct {
	files    ProjectFiles
	workRoot string
	userFile string
	project  []ruleFile      // work root first, then nested in discovery order
	user     *ruleFile       // the user-level file, if any
	dirs     map[string]bool // directories already looked at (and their parents)
	touched  map[string]bool // files already looked up
}

// newRules loads the work root's rules and the user's. files may be nil
// (no project access): then only the user's file is read.
func newRules(ctx context.Context, files ProjectFiles, workRoot, userFile string) *rules {
	r := &rules{files: files, workRoot: workRoot, userFile: userFile, dirs: map[string]bool{}, touched: map[string]bool{}}
	if files != nil && workRoot != "" {
		if f, ok := r.readDir(ctx, workRoot, true); ok {
			r.project = append(r.project, f)
		}
		r.dirs[filepath.Clean(workRoot)] = true
	}
	if userFile != "" {
		b, err := os.ReadFile(userFile)
		switch {
		case err == nil && strings.TrimSpace(string(b)) != "":
			r.user = &ruleFile{label: userFile, text: string(b)}
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			slog.Warn("agent: user rules file not read", "path", userFile, "error", err)
		}
	}
	return r
}

// touch adds the nearest rules file above each of paths not seen yet
// (below the root holding it) and reports whether any was added.
func (r *rules) touch(ctx context.Context, paths ...string) bool {
	if r.files == nil {
		return false
	}
	added := false
	for _, p := range paths {
		if p == "" || r.touched[p] {
			continue
		}
		r.touched[p] = true
		gp, err := r.files.Resolve(p)
		if err != nil {
			continue
		}
		if f, ok := r.nearest(ctx, filepath.Dir(gp.Abs), gp.Root); ok {
			r.project = append(r.project, f)
			added = true
		}
	}
	return added
}

// nearest walks from dir up to root and returns the first rules file
// found in a directory not looked at before. The work root's file is
// already in; another root's counts as nested.
func (r *rules) nearest(ctx context.Context, dir, root string) (ruleFile, bool) {
	root = filepath.Clean(root)
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if r.dirs[d] {
			return ruleFile{}, false // looked at already: its file, if any, is in
		}
		r.dirs[d] = true
		if f, ok := r.readDir(ctx, d, d == root); ok {
			return f, true
		}
		if d == root || d == filepath.Dir(d) {
			return ruleFile{}, false
		}
	}
}

// readDir reads dir's rules file: AGENTS.md, else CLAUDE.md, else (at a
// root) .github/copilot-instructions.md.
func (r *rules) readDir(ctx context.Context, dir string, isRoot bool) (ruleFile, bool) {
	names := ruleNames
	if isRoot {
		names = append(names[:len(names):len(names)], rootOnlyRules)
	}
	for _, n := range names {
		gp, b, err := r.files.ReadText(ctx, filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				slog.Debug("agent: rules file not read", "dir", dir, "name", n, "error", err)
			}
			continue
		}
		if strings.TrimSpace(string(b)) == "" {
			continue
		}
		return ruleFile{label: displayPath(gp.Abs, r.workRoot), text: string(b)}, true
	}
	return ruleFile{}, false
}

// all lists the files in prompt order, which is also the order the cap
// keeps them in: the project's (root, then nested), then the user's.
func (r *rules) all() []ruleFile {
	out := append([]ruleFile(nil), r.project...)
	if r.user != nil {
		out = append(out, *r.user)
	}
	return out
}

// labels names the files, for the transcript.
func (r *rules) labels() []string {
	var out []string
	for _, f := range r.all() {
		out = append(out, f.label)
	}
	return out
}

// section renders the rules for the system prompt, cut at RulesCap. It
// is "" when there are none.
func (r *rules) section() string {
	files := r.all()
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nProject rules. Follow them; a file nearer to the code you change takes precedence over the root's, and the project's over the user's.\n")
	left := RulesCap
	var omitted []string
	for _, f := range files {
		text := strings.TrimRight(f.text, "\n")
		if left <= 0 {
			omitted = append(omitted, fmt.Sprintf("%s (%d bytes)", f.label, len(text)))
			continue
		}
		fmt.Fprintf(&b, "\n## Rules from %s\n\n", f.label)
		if len(text) > left {
			kept := truncateText(text, left)
			kept = strings.TrimSuffix(kept, "…")
			fmt.Fprintf(&b, "%s\n[cut: the last %d of %d bytes of %s are left out, over the %d KB rules cap]\n",
				kept, len(text)-len(kept), len(text), f.label, RulesCap>>10)
			left = 0
			continue
		}
		b.WriteString(text)
		b.WriteString("\n")
		left -= len(text)
	}
	if len(omitted) > 0 {
		fmt.Fprintf(&b, "\n[left out, over the %d KB rules cap: %s]\n", RulesCap>>10, strings.Join(omitted, ", "))
	}
	return b.String()
}

// UserRulesFile returns the user-level rules file:
// $XDG_CONFIG_HOME/catbuddy/AGENTS.md (default ~/.config/catbuddy/AGENTS.md),
// beside the user's config.json.
func UserRulesFile() string {
	dir := config.UserDir(os.Getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, userRulesName)
}
