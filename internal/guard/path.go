package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
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

// InternalDir is the directory below a root that internal mode admits,
// slash-separated and relative to the root.
const InternalDir = StateDir + "/workspace"

// ErrDenied is wrapped by every refusal of PathGuard.
//
//lint:ignore ST1005 capitalised: the model reads it verbatim, as the start of a sentence
var ErrDenied = errors.New("Access denied")

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
	setMu sync.Mutex // serialises SetRoots and SetMode
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

// SetRoots replaces the workspace folders. Each root is made absolute
// and its symlinks resolved, so later checks compare real paths. In
// internal mode the <root>/.catbuddy/workspace directories are created,
// because every admitted path lies below them.
func (g *PathGuard) SetRoots(roots []string) error {
	g.setMu.Lock()
	defer g.setMu.Unlock()
	return g.setRoots(roots)
}

func (g *PathGuard) setRoots(roots []string) error {
	real := make([]string, 0, len(roots))
	for _, r := range roots {
		if r == "" {
			return errors.New("root is empty")
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("root %q: %w", r, err)
		}
		if ev, err := filepath.EvalSymlinks(abs); err == nil {
			abs = ev
		}
		real = append(real, filepath.Clean(abs))
	}
	g.mu.RLock()
	eff := g.mode
	g.mu.RUnlock()
	if eff == ModeAuto {
		eff = ModeProject
		for _, r := range real {
			if IsSensitive(r) {
				eff = ModeInternal
			}
		}
	}
	if eff == ModeInternal {
		for _, r := range real {
			// Created without following a symlink: a ".catbuddy" link
			// must not make cb-ls create directories elsewhere.
			d, err := OpenStateDir(r, "workspace")
			if err != nil {
				// Not fatal: Resolve will refuse paths below it clearly.
				slog.Warn("cannot create internal workspace", "dir", filepath.Join(r, filepath.FromSlash(InternalDir)), "err", err)
				continue
			}
			d.Close()
		}
	}
	g.mu.Lock()
	g.roots, g.eff = real, eff
	g.mu.Unlock()
	return nil
}

// SetMode changes the requested mode, for every later call, as New's
// mode would have been (a trusted project's "mode" applies without a
// restart).
func (g *PathGuard) SetMode(mode Mode) error {
	g.setMu.Lock()
	defer g.setMu.Unlock()
	g.mu.Lock()
	changed := g.mode != mode
	g.mode = mode
	g.mu.Unlock()
	if !changed {
		return nil
	}
	return g.setRoots(g.Roots())
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
	return g.snapshot().workRoot()
}

// Boundaries returns the directories inside which paths are admitted:
// the roots, or their .catbuddy/workspace in internal mode.
func (g *PathGuard) Boundaries() []string {
	return g.snapshot().boundaries()
}

// IsSensitive reports whether dir is a place the agent should not roam
// freely: the filesystem root, the user's home directory, or a directory
// that contains the home directory (/home, /Users).
func IsSensitive(dir string) bool {
	dir = filepath.Clean(dir)
	if dir == string(filepath.Separator) || filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	for _, h := range []string{home, evalOr(home)} {
		if _, ok := within(dir, filepath.Clean(h)); ok {
			return true
		}
	}
	return false
}

func evalOr(p string) string {
	if ev, err := filepath.EvalSymlinks(p); err == nil {
		return ev
	}
	return p
}

// snap is a consistent view of the guard for one resolution, so that a
// concurrent SetRoots never mixes old roots with a new mode.
type snap struct {
	roots []string
	eff   Mode
}

func (g *PathGuard) snapshot() snap {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return snap{roots: g.roots, eff: g.eff}
}

func (s snap) workRoot() string {
	if len(s.roots) == 0 {
		return ""
	}
	if s.eff == ModeInternal {
		return filepath.Join(s.roots[0], filepath.FromSlash(InternalDir))
	}
	return s.roots[0]
}

func (s snap) boundaries() []string {
	out := make([]string, len(s.roots))
	for i, r := range s.roots {
		if s.eff == ModeInternal {
			r = filepath.Join(r, filepath.FromSlash(InternalDir))
		}
		out[i] = r
	}
	return out
}

// Resolve cleans p, joins it to the work root if it is relative,
// resolves every symlink on the way (for a path that does not exist
// yet, those of its nearest existing ancestor) and admits it only if the
// real path lies inside a boundary, component-wise. In project mode any
// path that names or reaches .catbuddy/ is refused. An existing final
// component must be a regular file or a directory: devices, FIFOs and
// sockets are refused so that no read can hang. Refusals wrap ErrDenied
// and quote the input.
func (g *PathGuard) Resolve(p string) (Path, error) {
	if strings.TrimSpace(p) == "" {
		return Path{}, deny(p, "is empty")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return Path{}, deny(p, "contains a control character")
		}
	}
	s := g.snapshot()
	work := s.workRoot()
	if work == "" {
		return Path{}, deny(p, "cannot be resolved: no workspace folder is open")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(work, abs)
	}
	abs = filepath.Clean(abs)
	bounds := s.boundaries()

	// The spelling alone may already lead into .catbuddy/ ("./.catbuddy",
	// "sub/../.catbuddy/x"); refuse it before touching the disk.
	if s.eff == ModeProject {
		for _, r := range s.roots {
			if rel, ok := within(r, abs); ok && hasStateDir(rel) {
				return Path{}, deny(p, "is inside .catbuddy/, which holds cb-ls's own state")
			}
		}
	}

	start := "/"
	if b := longestContaining(s.roots, abs); b != "" {
		start = b // roots are real already: no need to resolve them again
	}
	real, fi, err := resolveReal(start, abs)
	if err != nil {
		return Path{}, fmt.Errorf("%w: %q %v", ErrDenied, p, err)
	}
	b := longestContaining(bounds, real)
	if b == "" {
		return Path{}, deny(p, "is outside the workspace")
	}
	rel, _ := within(b, real)
	if s.eff == ModeProject && hasStateDir(rel) {
		return Path{}, deny(p, "leads into .catbuddy/, which holds cb-ls's own state")
	}
	if fi != nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return Path{}, deny(p, "is not a regular file or directory ("+kind(fi.Mode())+")")
	}
	return Path{Abs: real, Root: b, Rel: rel}, nil
}

// hasStateDir reports whether a slash-separated relative path has a
// .catbuddy component. Any depth counts: a nested project's state is
// no more the agent's business than the open one's. The comparison
// ignores case because macOS and Windows file systems do.
func hasStateDir(rel string) bool {
	for c := range strings.SplitSeq(rel, "/") {
		if strings.EqualFold(c, StateDir) {
			return true
		}
	}
	return false
}

// longestContaining returns the deepest of dirs that contains p, or "".
func longestContaining(dirs []string, p string) string {
	best := ""
	for _, d := range dirs {
		if _, ok := within(d, p); ok && len(d) > len(best) {
			best = d
		}
	}
	return best
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

func deny(p, why string) error {
	return fmt.Errorf("%w: %q %s", ErrDenied, p, why)
}

// within reports whether p is root or below it, component-wise, and
// returns the slash-separated relative path. Both must be clean and
// absolute. A string-prefix test would admit /w/proj2 for /w/proj.
func within(root, p string) (string, bool) {
	if p == root {
		return ".", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return filepath.ToSlash(p[len(prefix):]), true
}
