package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/search"
)

// Ignored is what a command wrote among the files a .gitignore hides
// (build outputs: dist/, *.pyc), which the scans leave out so that a
// write command costs a scan of the project's own files. They are found
// after the command only, by modification time: a file written since
// the command started counts (created or changed; deletions are not
// seen). node_modules is not looked into.
type Ignored struct {
	// Count is the number of files written.
	Count int
	// Groups are the ignored entries they are under, by name ("dist/",
	// "app.pyc"), most files first.
	Groups []IgnoredGroup
	// Partial: the check stopped after maxIgnoredChecked files.
	Partial bool
	// Paths are the absolute paths of the files written.
	Paths []string
}

// IgnoredGroup is one ignored entry with the written files under it.
type IgnoredGroup struct {
	Name  string // slash path, relative to its workspace folder; "dist/" for a directory
	Files int
}

// maxIgnoredChecked bounds the ignored files one check stats, so that a
// large ignored tree costs a bounded time after each write command.
const maxIgnoredChecked = 20000

// fsNow is the time as the file system stamps files now. The kernel
// stamps with a clock that ticks every few milliseconds and lags
// time.Now, so a file written just after time.Now may carry an earlier
// mtime; a file of its own says what the stamp is. Failing that, a
// little before time.Now.
func fsNow() time.Time {
	f, err := os.CreateTemp("", "cb-ls-clock-")
	if err != nil {
		return time.Now().Add(-10 * time.Millisecond)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Now().Add(-10 * time.Millisecond)
	}
	return fi.ModTime()
}

// TakeAfter is the scan after a command (Take without copies), and the
// ignored files written since since, when the command started (the
// before scan's Taken).
func TakeAfter(ctx context.Context, roots []guard.Path, since time.Time) (Scan, Ignored) {
	type hidden struct {
		root guard.Path
		e    search.Entry
	}
	var (
		mu   sync.Mutex
		tops []hidden
	)
	s := take(ctx, roots, nil, func(root guard.Path, e search.Entry) {
		if e.Type.IsRegular() || e.Type.IsDir() && !search.IsDependency(e.Name, true) {
			mu.Lock()
			tops = append(tops, hidden{root, e})
			mu.Unlock()
		}
	})
	slices.SortFunc(tops, func(a, b hidden) int { return strings.Compare(a.e.Rel, b.e.Rel) })
	limit := since.UnixNano()
	// The files that run later are in the scan even where ignored.
	probed := map[string]bool{}
	for _, r := range roots {
		for _, rel := range runsLaterProbes {
			probed[filepath.Join(r.Root, filepath.FromSlash(search.RelJoin(r.Rel, rel)))] = true
		}
	}
	var (
		ig      Ignored
		checked atomic.Int64
	)
	for _, h := range tops {
		if checked.Load() >= maxIgnoredChecked {
			ig.Partial = true
			break
		}
		var paths []string
		if h.e.Type.IsRegular() {
			checked.Add(1)
			p := filepath.Join(h.root.Root, filepath.FromSlash(h.e.Rel))
			if st, ok := stampPath(p); ok && st.mtime >= limit {
				paths = append(paths, p)
			}
		} else {
			paths = writtenUnder(ctx, h.root, h.e.Rel, limit, &checked)
		}
		paths = slices.DeleteFunc(paths, func(p string) bool { return probed[p] })
		if len(paths) == 0 {
			continue
		}
		name := h.e.Rel
		if h.e.Type.IsDir() {
			name += "/"
		}
		ig.Count += len(paths)
		ig.Paths = append(ig.Paths, paths...)
		ig.Groups = append(ig.Groups, IgnoredGroup{Name: name, Files: len(paths)})
	}
	slices.SortStableFunc(ig.Groups, func(a, b IgnoredGroup) int { return b.Files - a.Files })
	return s, ig
}

// writtenUnder walks the ignored directory rel (everything in it, but
// node_modules) and returns the files modified at or after limit,
// counting what it stats in checked and stopping at maxIgnoredChecked.
func writtenUnder(ctx context.Context, root guard.Path, rel string, limit int64, checked *atomic.Int64) []string {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu  sync.Mutex
		out []string
	)
	start := guard.Path{Abs: filepath.Join(root.Root, filepath.FromSlash(rel)), Root: root.Root, Rel: rel}
	_, _ = search.Walk(ctx, start, search.Options{NoIgnore: true, SkipDependencies: true}, func(_ int, dir *safefile.Dir, e search.Entry) {
		if !e.Type.IsRegular() {
			return
		}
		if checked.Add(1) > maxIgnoredChecked {
			cancel()
			return
		}
		if st, ok := stampIn(dir, e.Name); ok && st.mtime >= limit {
			mu.Lock()
			out = append(out, filepath.Join(root.Root, filepath.FromSlash(e.Rel)))
			mu.Unlock()
		}
	})
	slices.Sort(out)
	return out
}

// render is the line the report gives the ignored files written, or "".
func (ig Ignored) render() string {
	if ig.Count == 0 {
		return ""
	}
	var parts []string
	for i, g := range ig.Groups {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		name := g.Name
		if strings.HasSuffix(name, "/") {
			name += "…"
		}
		if len(ig.Groups) > 1 && g.Files > 1 {
			name += fmt.Sprintf(" %d", g.Files)
		}
		parts = append(parts, name)
	}
	n := fmt.Sprint(ig.Count)
	if ig.Partial {
		n = "at least " + n
	}
	files := "files"
	if ig.Count == 1 {
		files = "file"
	}
	return fmt.Sprintf("%s ignored %s changed (%s)", n, files, strings.Join(parts, ", "))
}
