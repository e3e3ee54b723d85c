package changeset

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Store holds every run's change set under the workspace folders. A
// front end has one (app builds it); it is safe for concurrent use.
type Store struct {
	g   *guard.PathGuard
	log *slog.Logger

	mu        sync.Mutex
	sets      map[string]*Set
	listeners []func(runID string)
}

// Open returns the Store over g's folders, with the sets earlier
// processes left in them (<folder>/.catbuddy/runs/<runId>/): a set
// survives a crash and a restart. A set that cannot be read is logged
// and left where it is.
func Open(g *guard.PathGuard, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.Default()
	}
	s := &Store{g: g, log: log, sets: map[string]*Set{}}
	s.Reload()
	return s, nil
}

// Reload looks again for stored sets in the guard's folders (after the
// editor's folders changed). Sets already open are kept as they are.
func (s *Store) Reload() {
	for _, root := range s.g.Roots() {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(RunsDir)))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.log.Warn("read the pending change sets", "folder", root, "error", err)
			}
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !validRunID(e.Name()) {
				continue
			}
			if err := s.load(root, e.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				s.log.Warn("read a pending change set", "folder", root, "run", e.Name(), "error", err)
			}
		}
	}
}

// load adds root's part of run id to its set.
func (s *Store) load(root, id string) error {
	f, m, err := loadFolder(root, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	set, ok := s.sets[id]
	if !ok {
		set = s.newSet(id, m.Title, m.Started)
		s.sets[id] = set
	}
	s.mu.Unlock()
	set.mu.Lock()
	defer set.mu.Unlock()
	if _, ok := set.folders[root]; ok {
		return nil
	}
	set.folders[root] = f
	set.news = append(set.news, m.News...)
	return set.rescan(f)
}

func (s *Store) newSet(id, title string, started time.Time) *Set {
	return &Set{store: s, id: id, title: title, started: started,
		folders: map[string]*folder{}, pending: map[string]map[string]pendingEntry{}, conflicts: map[string]string{}}
}

// Begin returns run id's set: the stored one if an earlier process left
// it (a continued run), else a new, empty one. Nothing is written until
// the run changes something.
func (s *Store) Begin(runID, title string) (*Set, error) {
	if !validRunID(runID) {
		return nil, fmt.Errorf("invalid run id %q", runID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.sets[runID]; ok {
		return set, nil
	}
	set := s.newSet(runID, title, time.Now())
	s.sets[runID] = set
	return set, nil
}

// Get returns run id's set, if there is one.
func (s *Store) Get(runID string) (*Set, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sets[runID]
	return set, ok
}

// Pending returns the sets with something pending, newest first.
func (s *Store) Pending() []*Set {
	s.mu.Lock()
	all := make([]*Set, 0, len(s.sets))
	for _, set := range s.sets {
		all = append(all, set)
	}
	s.mu.Unlock()
	var out []*Set
	for _, set := range all {
		if len(set.Files()) > 0 {
			out = append(out, set)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Started(), out[j].Started()
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].id > out[j].id
	})
	return out
}

// OnChange registers fn, called after any change of a set (an edit, a
// command's changes, a keep, a discard) with the set's run. It is
// called without any lock held, on the goroutine that made the change.
func (s *Store) OnChange(fn func(runID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

func (s *Store) notify(runID string) {
	s.mu.Lock()
	ls := append([]func(string){}, s.listeners...)
	s.mu.Unlock()
	for _, fn := range ls {
		fn(runID)
	}
}

// validRunID admits a run id as a directory name: no separators, no
// dots alone, nothing hidden.
func validRunID(id string) bool {
	return id != "" && len(id) <= 128 && !strings.ContainsAny(id, `/\:`) && !strings.HasPrefix(id, ".")
}
