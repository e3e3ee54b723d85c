package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// A command's $TMPDIR is its own and is removed when the call ends, so
// a file a model puts there (a test program, a profile) is gone by the
// next call. $CB_SCRATCH is a directory that lasts across the calls of
// one run: outside the workspace (nothing there is a pending change or
// shows in a listing), in exec's private cache (which confined commands
// may write), one per run. RemoveScratch removes a run's, for the code
// that removes the run's state; until that calls it, scratch directories
// untouched for scratchMaxAge are removed when a new one is made.

// ScratchEnv is the variable that names the run's scratch directory.
const ScratchEnv = "CB_SCRATCH"

// scratchMaxAge is how long an abandoned scratch directory is kept.
const scratchMaxAge = 7 * 24 * time.Hour

var (
	scratchMu    sync.Mutex
	scratchKeys  = map[any]string{} // a run without an ID (its FileStates) → its key
	scratchPrune sync.Once
)

// scratchDir is the run's scratch directory, made if need be, or ""
// when there is no cache directory to hold it.
func (tc *ToolContext) scratchDir(ctx context.Context) string {
	base := scratchBase()
	if base == "" {
		return ""
	}
	dir := filepath.Join(base, scratchKey(ctx, tc))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	scratchPrune.Do(func() { go pruneScratch(base, dir) })
	return dir
}

// scratchBase is where the runs' scratch directories lie.
func scratchBase() string {
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(c, "catbuddy-exec", "scratch")
}

// scratchKey names the run's directory: its ID, else a random name
// kept for its FileStates (or, outside any run, for tc).
func scratchKey(ctx context.Context, tc *ToolContext) string {
	if v, ok := RunViewFrom(ctx); ok && v.ID != "" {
		return safeName(v.ID)
	}
	var owner any = tc
	if s := filestate.FromContext(ctx); s != nil {
		owner = s
	}
	scratchMu.Lock()
	defer scratchMu.Unlock()
	if k, ok := scratchKeys[owner]; ok {
		return k
	}
	var b [8]byte
	rand.Read(b[:])
	k := "session-" + hex.EncodeToString(b[:])
	scratchKeys[owner] = k
	return k
}

// safeName keeps a run ID a single path element.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, strings.TrimLeft(id, "."))
}

// RemoveScratch removes the scratch directory of the run id, when the
// run's state is removed.
func RemoveScratch(id string) error {
	base := scratchBase()
	if base == "" || safeName(id) == "" {
		return nil
	}
	return os.RemoveAll(filepath.Join(base, safeName(id)))
}

// pruneScratch removes the scratch directories other than keep that
// nothing touched for scratchMaxAge.
func pruneScratch(base, keep string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(base, e.Name())
		if fi, err := e.Info(); err == nil && p != keep && time.Since(fi.ModTime()) > scratchMaxAge {
			_ = os.RemoveAll(p)
		}
	}
}
