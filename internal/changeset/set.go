package changeset

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// Set is one run's pending change set. It is safe for concurrent use:
// the run writes to it while the user keeps or discards.
type Set struct {
	store *Store
	id    string
	// op makes keeps, discards and commands over the layer one at a
	// time: overlayfs must not see its upper directory change under a
	// mounted command, and a keep must not interleave with another.
	op sync.Mutex

	mu      sync.Mutex
	title   string
	started time.Time
	news    []string
	folders map[string]*folder // by folder (the layer's lower)
	// pending is, per folder, what its layer changes: the truth is
	// upper/ (sandbox.ScanUpper); this is its index, kept up to date by
	// the set's own writes and rebuilt after each command.
	pending map[string]map[string]pendingEntry
	files   []File // Files() as last computed; nil when stale
	// conflicts are the reasons the last keep left hunks pending, by ID.
	conflicts map[string]string
}

// pendingEntry is one file the layer creates, changes or deletes.
type pendingEntry struct {
	kind  Kind
	group string // the group it belongs to ("" for a reviewed file)
}

// RunID returns the run the set belongs to.
func (s *Set) RunID() string { return s.id }

// Title returns the run's title, as Begin was given it.
func (s *Set) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.title
}

// Started returns when the run began.
func (s *Set) Started() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Count returns how many items are pending: hunks, plus one for each
// group.
func (s *Set) Count() int {
	n := 0
	for _, f := range s.Files() {
		if f.Group != nil {
			n++
			continue
		}
		n += len(f.Hunks)
	}
	return n
}

// Layers returns the run's layer of each folder it has touched, and of
// every folder of roots (each writable folder needs one for a command),
// creating their directories.
func (s *Set) layers(roots []string) ([]sandbox.OverlayLayer, error) {
	var out []sandbox.OverlayLayer
	for _, r := range roots {
		f, err := s.folderFor(r)
		if err != nil {
			return nil, err
		}
		out = append(out, f.layer)
	}
	return out, nil
}

// folderFor returns root's part of the set, created (on disk too) when
// missing. s.mu is held.
func (s *Set) folderFor(root string) (*folder, error) {
	if f, ok := s.folders[root]; ok {
		return f, nil
	}
	st, err := userstate.For(s.store.base, root)
	if err != nil {
		return nil, err
	}
	f := newFolder(st, s.id)
	if err := f.ensure(); err != nil {
		return nil, err
	}
	s.folders[root] = f
	s.pending[root] = map[string]pendingEntry{}
	if err := f.save(s.manifest()); err != nil {
		return nil, err
	}
	return f, nil
}

// manifest is the set's description as stored. s.mu is held.
func (s *Set) manifest() manifest {
	return manifest{RunID: s.id, Title: s.title, Started: s.started, News: s.news}
}

// saveAll stores every folder's manifest. s.mu is held.
func (s *Set) saveAll() error {
	var first error
	for _, f := range s.folders {
		if err := f.save(s.manifest()); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// changed marks the computed files stale and tells the store's
// listeners. s.mu must NOT be held.
func (s *Set) changed() {
	s.store.notify(s.id)
}

// pathOf is the guard.Path of rel in root.
func pathOf(root, rel string) guard.Path {
	return guard.Path{Abs: filepath.Join(root, filepath.FromSlash(rel)), Root: root, Rel: rel}
}

// rescan rebuilds f's index from its upper directory (after a command,
// or when the set is found again): files the layer changes that the
// manifest does not know yet get their base from the folder (the
// command's changes), records whose file the layer no longer changes
// are dropped (a crash between the manifest and the layer), and a
// materialised buffer the command left alone is taken out again.
// s.mu is held.
func (s *Set) rescan(f *folder) error { return s.rescanContext(context.Background(), f) }

// rescanContext is rescan, its reads stopping when ctx is done. s.mu is
// held.
func (s *Set) rescanContext(ctx context.Context, f *folder) error {
	entries, err := sandbox.ScanUpper(f.layer.Upper, f.root)
	if err != nil {
		return fmt.Errorf("scan the layer of %s: %w", f.root, err)
	}
	idx := map[string]pendingEntry{}
	groups := newGrouper(f.root)
	dirty := false // the manifest needs saving
	add := func(rel string, k Kind, existed bool) {
		if rec, ok := f.files[rel]; ok {
			k = recordedKind(rec, k)
		}
		e := pendingEntry{kind: k, group: groups.group(rel)}
		idx[rel] = e
		if _, ok := f.files[rel]; ok {
			return
		}
		dirty = true
		rec := &fileRecord{Existed: existed}
		if existed && k == KindChanged && e.group == "" {
			// A command changed it: the base is the folder's file, which
			// the layer never writes, copied when it is a file of at
			// most MaxDiffSize. Read as every read here, following no
			// link (a link to ~/.git-credentials stays a link: its
			// target's content must never become a base the agent is
			// told of) and opening nothing but a regular file. Anything
			// else is the folder's entry itself (Lower).
			sd, err := readSide(ctx, f.root, rel)
			if err == nil && (sd.form.regular() && sd.form != FormBig) && f.writeBase(rel, sd.data) == nil {
				f.files[rel] = rec
				return
			}
		}
		rec.Lower = existed
		if existed {
			// What the folder holds now is what the command found: the
			// layer never writes it.
			if lb, err := fingerprint(ctx, f.root, rel); err == nil {
				rec.Base = lb
			} else {
				s.store.log.Warn("record the base of a command's change", "file", rel, "error", err)
			}
		}
		f.files[rel] = rec
	}
	for _, e := range entries {
		isDir := e.Mode.IsDir() || (e.Change == sandbox.Deleted && e.LowerMode.IsDir())
		switch {
		case e.Change == sandbox.Deleted && isDir:
			for _, rel := range lowerFiles(f.root, e.Path) {
				add(rel, KindDeleted, true)
			}
		case isDir:
			// A directory made or replaced: its files are listed on their own.
		case e.Change == sandbox.Deleted:
			add(e.Path, KindDeleted, true)
		case e.Change == sandbox.Created || (e.Change == sandbox.Replaced && e.LowerMode.IsDir()):
			add(e.Path, KindCreated, e.Change == sandbox.Replaced)
		default:
			add(e.Path, KindChanged, true)
		}
	}
	for rel, rec := range f.files {
		if _, ok := idx[rel]; !ok {
			f.dropBase(rel)
			dirty = true
			continue
		}
		if rec.Materialised {
			dirty = true
			base, berr := f.baseText(ctx, rel)
			if cur, _, ok := f.upperText(ctx, rel); ok && berr == nil && bytes.Equal(cur, base) {
				_ = f.layer.Revert(rel)
				f.dropBase(rel)
				delete(idx, rel)
				continue
			}
			rec.Materialised = false // the command changed it: the run's now
		}
	}
	s.pending[f.root] = idx
	s.files = nil
	if !dirty {
		return nil
	}
	return f.save(s.manifest())
}

// recordedKind is the kind of a change the manifest knows, the layer's
// entry being of scanned kind: what the run recorded decides it (did
// the file exist when the run first touched it?), never the folder as
// it is today, where the user may have deleted or created the file
// since. A whiteout is a deletion whatever was recorded.
func recordedKind(rec *fileRecord, scanned Kind) Kind {
	switch {
	case scanned == KindDeleted:
		return KindDeleted
	case rec.Existed:
		return KindChanged
	}
	return KindCreated
}

// lowerFiles lists the files beneath dir (relative to root), which a
// layer deleted as a whole.
func lowerFiles(root, dir string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == guard.StateDir {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// sortedRels returns m's keys in order.
func sortedRels[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortedRoots returns the set's folders, in order.
func (s *Set) sortedRoots() []string { return sortedRels(s.folders) }
