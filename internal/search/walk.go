package search

import (
	"context"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Entry is one directory entry met by a walk.
type Entry struct {
	Rel  string      // slash path relative to the walk's boundary root
	Name string      // last element
	Type fs.FileMode // type bits only (fs.ModeDir, fs.ModeSymlink, 0 for regular)
}

// Visit is called for every entry that is neither skipped nor
// ignored, on one of the walk's goroutines. worker identifies the
// goroutine (0 ≤ worker < workers) so callers can keep per-worker
// buffers; dir is the entry's directory, reached without following a
// symlink, through which the entry may be opened by Name (internal/safefile).
type Visit func(worker int, dir *safefile.Dir, e Entry)

// Options tune a walk.
type Options struct {
	// NoIgnore disables .gitignore handling (.git and .catbuddy are
	// skipped regardless).
	NoIgnore bool
	// SkipDependencies leaves out node_modules directories and lockfiles
	// (dependencies.go) even where no .gitignore names them: grep and
	// glob skip them unless asked, since they drown a project's own
	// files.
	SkipDependencies bool
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Ignored, if set, is called (on a walk goroutine) for each entry a
	// .gitignore hides, which the walk neither visits nor enters: what a
	// command's ignored outputs (dist/) hide under.
	Ignored func(e Entry)
}

// Stats counts what a walk could not do.
type Stats struct {
	Unreadable atomic.Int64 // directories that could not be opened or listed
	// Dependencies counts the node_modules directories and lockfiles
	// SkipDependencies left out.
	Dependencies atomic.Int64
}

// alwaysSkipped are names a walk never reports or enters: version
// control internals and cb-ls's own state.
func alwaysSkipped(name string) bool {
	return name == ".git" || strings.EqualFold(name, guard.StateDir)
}

// Walk walks the directory start (admitted by the guard) with a
// bounded pool of goroutines. Symlinks are reported but never followed,
// so a walk cannot leave the root. .git and .catbuddy are always skipped, and entries ignored by
// a .gitignore (from the boundary root down to each directory) unless
// NoIgnore. Every directory is opened from the root with no symlink on
// the way (internal/safefile), so one swapped for a symlink to .catbuddy/ is not
// entered. Entries of one directory are visited in name order, but
// directories run concurrently: callers sort what they collect.
func Walk(ctx context.Context, start guard.Path, opt Options, visit Visit) (*Stats, error) {
	root, err := safefile.OpenBeneath(start.Root, ".")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var chain *ignoreChain
	if !opt.NoIgnore {
		chain = ancestorIgnores(root, start.Rel)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w := &walker{ctx: ctx, root: root, noIgnore: opt.NoIgnore, skipDeps: opt.SkipDependencies, visit: visit, ignored: opt.Ignored, stats: &Stats{},
		listBufs: make([][]byte, workers), ents: make([][]safefile.DirEnt, workers)}
	w.cond = sync.NewCond(&w.mu)
	w.push(walkJob{rel: start.Rel, chain: chain})
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(i)
		}()
	}
	wg.Wait()
	return w.stats, ctx.Err()
}

// walkJob is a directory to list, or a batch of its files to visit
// (then dir holds one reference, released when the batch is done).
type walkJob struct {
	rel   string
	chain *ignoreChain
	// For a directory below the start: its parent, open (one reference,
	// released once the directory is opened), and its name there.
	parent *sharedRoot
	name   string
	// For a file batch:
	dir   *sharedRoot
	files []Entry
}

// sharedRoot closes a directory once every batch that uses it is done.
type sharedRoot struct {
	*safefile.Dir
	refs atomic.Int32
}

func (s *sharedRoot) release() {
	if s.refs.Add(-1) == 0 {
		s.Close()
	}
}

type walker struct {
	ctx      context.Context
	root     *safefile.Dir
	noIgnore bool
	skipDeps bool
	visit    Visit
	ignored  func(Entry)
	stats    *Stats
	// Per worker: the listing buffer and entries, reused.
	listBufs [][]byte
	ents     [][]safefile.DirEnt

	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []walkJob // a stack: depth first keeps few directories open
	pending int       // jobs queued or running
}

func (w *walker) push(j walkJob) {
	w.mu.Lock()
	w.jobs = append(w.jobs, j)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *walker) work(id int) {
	for {
		w.mu.Lock()
		for len(w.jobs) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		j := w.jobs[len(w.jobs)-1]
		w.jobs = w.jobs[:len(w.jobs)-1]
		w.mu.Unlock()

		if j.dir != nil {
			w.visitFiles(id, j.dir.Dir, j.files)
			j.dir.release()
		} else {
			w.list(id, j)
		}

		w.mu.Lock()
		w.pending--
		done := w.pending == 0
		w.mu.Unlock()
		if done {
			w.cond.Broadcast()
		}
	}
}

// batchSize is how many files of one directory one job visits, so that
// a directory of thousands of files still spreads over all workers.
const batchSize = 64

func (w *walker) list(id int, j walkJob) {
	if w.ctx.Err() != nil {
		if j.parent != nil {
			j.parent.release()
		}
		return
	}
	var dir *safefile.Dir
	var err error
	if j.parent != nil {
		// Opened by its name in its parent (openat, no symlink followed),
		// not by its path from the root: one lookup instead of one per
		// level.
		dir, err = j.parent.OpenDir(j.name)
		j.parent.release()
	} else {
		dir, err = w.root.OpenDir(filepath.FromSlash(j.rel))
	}
	if err != nil {
		w.stats.Unreadable.Add(1)
		return
	}
	shared := &sharedRoot{Dir: dir}
	shared.refs.Store(1)
	defer shared.release()
	ents, err := dir.List(w.ents[id][:0], &w.listBufs[id])
	w.ents[id] = ents[:0]
	if err != nil && len(ents) == 0 {
		w.stats.Unreadable.Add(1)
		return
	}
	slices.SortFunc(ents, func(a, b safefile.DirEnt) int { return strings.Compare(a.Name, b.Name) })
	chain := j.chain
	if !w.noIgnore {
		for _, e := range ents {
			if e.Name == ".gitignore" && e.Type.IsRegular() {
				chain = chain.push(loadIgnore(dir, ".gitignore", RelJoin(j.rel, "")))
				break
			}
		}
	}
	var files []Entry
	for _, e := range ents {
		name := e.Name
		t := e.Type
		rel := RelJoin(j.rel, name)
		if alwaysSkipped(name) {
			continue
		}
		if !w.noIgnore && chain.ignored(rel, t.IsDir()) {
			if w.ignored != nil {
				w.ignored(Entry{Rel: rel, Name: name, Type: t})
			}
			continue
		}
		if w.skipDeps && isDependency(name, t.IsDir()) {
			w.stats.Dependencies.Add(1)
			continue
		}
		we := Entry{Rel: rel, Name: name, Type: t}
		if t.IsDir() {
			w.visit(id, dir, we)
			shared.refs.Add(1)
			w.push(walkJob{rel: rel, chain: chain, parent: shared, name: name})
			continue
		}
		files = append(files, we)
	}
	for len(files) > batchSize {
		shared.refs.Add(1)
		w.push(walkJob{dir: shared, files: files[len(files)-batchSize:]})
		files = files[:len(files)-batchSize]
	}
	w.visitFiles(id, dir, files)
}

func (w *walker) visitFiles(id int, d *safefile.Dir, files []Entry) {
	for _, f := range files {
		if w.ctx.Err() != nil {
			return
		}
		w.visit(id, d, f)
	}
}

// RelJoin joins slash paths where "." (or "") is the root.
func RelJoin(dir, name string) string {
	if dir == "." || dir == "" {
		if name == "" {
			return ""
		}
		return name
	}
	if name == "" {
		return dir
	}
	return dir + "/" + name
}
