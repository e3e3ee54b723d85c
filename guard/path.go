package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Mode selects how much of a root the agent may use.
type Mode int

const (
	// ModeAuto picks ModeInternal when a root is a sensitive place (the
	// user's home directory, "/"), ModeProject otherwise.
	ModeAuto Mode = iota
	// ModeProject admits the whole root except .catbuddy/.
	ModeProject
	// ModeInternal admits only <root>/.catbuddy/workspace.
	ModeInternal
)

func (m Mode) String() string {
	switch m {
	case ModeProject:
		return "project"
	case ModeInternal:
		return "internal"
	default:
		return "auto"
	}
}

// ParseMode parses "auto", "project" or "internal".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return ModeAuto, nil
	case "project":
		return ModeProject, nil
	case "internal":
		return ModeInternal, nil
	}
	return ModeAuto, fmt.Errorf("unknown mode %q (want auto, project or internal)", s)
}

// StateDir is the per-project directory that holds cb-ls's own state
// (sessions, memory, settings). The agent may never touch it, except
// its workspace subdirectory in internal mode.
const StateDir = ".catbuddy"

// ErrDenied is wrapped by every refusal of PathGuard.
var ErrDenied = errors.New("Access denied") // capitalised: the model reads it verbatim

// Path is a resolved, admitted path.
type Path struct {
	// Abs is the real absolute path (symlinks of the existing part resolved).
	Abs string
	// Root is the real absolute root (boundary) that admits Abs.
	Root string
	// Rel is Abs relative to Root, slash-separated; "." for the root itself.
	Rel string
}

// PathGuard resolves paths and admits only those inside its roots.
// It is safe for concurrent use; SetRoots takes effect for every later call.
type PathGuard struct {
	mu    sync.RWMutex
	roots []string // real absolute workspace folders; roots[0] is primary
	mode  Mode     // requested mode
	eff   Mode     // effective mode (never ModeAuto)
}

// New returns a PathGuard over roots (the first is the primary work root).
func New(roots []string, mode Mode) (*PathGuard, error) {
	g := &PathGuard{mode: mode}
	if err := g.SetRoots(roots); err != nil {
		return nil, err
	}
	return g, nil
}

// SetRoots replaces the workspace folders.
func (g *PathGuard) SetRoots(roots []string) error {
	real := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("root %q: %w", r, err)
		}
		if ev, err := filepath.EvalSymlinks(abs); err == nil {
			abs = ev
		}
		real = append(real, filepath.Clean(abs))
	}
	eff := g.mode
	if eff == ModeAuto {
		eff = ModeProject
		for _, r := range real {
			if IsSensitive(r) {
				eff = ModeInternal
			}
		}
	}
	g.mu.Lock()
	g.roots, g.eff = real, eff
	g.mu.Unlock()
	return nil
}

// Roots returns the current real workspace folders.
func (g *PathGuard) Roots() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]string(nil), g.roots...)
}

// Mode returns the effective mode (ModeProject or ModeInternal).
func (g *PathGuard) Mode() Mode {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.eff
}

// WorkRoot returns the directory relative paths resolve against: the
// primary root, or its .catbuddy/workspace in internal mode. It is ""
// when there are no roots.
func (g *PathGuard) WorkRoot() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if len(g.roots) == 0 {
		return ""
	}
	if g.eff == ModeInternal {
		return filepath.Join(g.roots[0], StateDir, "workspace")
	}
	return g.roots[0]
}

// IsSensitive reports whether dir is a place the agent should not roam
// freely: the filesystem root or the user's home directory.
func IsSensitive(dir string) bool {
	dir = filepath.Clean(dir)
	if dir == string(filepath.Separator) {
		return true
	}
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
		if filepath.Clean(home) == dir {
			return true
		}
	}
	return false
}

// Resolve cleans p, resolves it against the work root, resolves the
// symlinks of its existing part and admits it only if the real path lies
// inside a boundary. Refusals wrap ErrDenied and name the input.
func (g *PathGuard) Resolve(p string) (Path, error) {
	if p == "" {
		return Path{}, deny(p, "is empty")
	}
	for _, r := range p {
		if r == 0 || r < 0x20 || r == 0x7f {
			return Path{}, deny(p, "contains a control character")
		}
	}
	work := g.WorkRoot()
	if work == "" {
		return Path{}, deny(p, "cannot be resolved: no workspace folder is open")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(work, abs)
	}
	real, err := realPath(filepath.Clean(abs))
	if err != nil {
		return Path{}, fmt.Errorf("%w: %q: %v", ErrDenied, p, err)
	}
	for _, b := range g.boundaries() {
		rel, ok := within(b, real)
		if !ok {
			continue
		}
		if g.Mode() == ModeProject && (rel == StateDir || strings.HasPrefix(rel, StateDir+"/")) {
			return Path{}, deny(p, "is inside .catbuddy/, which holds cb-ls's own state")
		}
		return Path{Abs: real, Root: b, Rel: rel}, nil
	}
	return Path{}, deny(p, "is outside the workspace")
}

func (g *PathGuard) boundaries() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.eff == ModeInternal {
		out := make([]string, len(g.roots))
		for i, r := range g.roots {
			out[i] = filepath.Join(r, StateDir, "workspace")
		}
		return out
	}
	return append([]string(nil), g.roots...)
}

func deny(p, why string) error {
	return fmt.Errorf("%w: %q %s", ErrDenied, p, why)
}

// within reports whether p is root or below it, component-wise, and
// returns the slash-separated relative path.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// realPath resolves the symlinks of the longest existing prefix of p and
// appends the rest unchanged.
func realPath(p string) (string, error) {
	rest := ""
	cur := p
	for {
		ev, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(ev, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
