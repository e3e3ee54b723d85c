package changeset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// Store holds every run's change set under the workspace folders. A
// front end has one (app builds it); it is safe for concurrent use.
type Store struct {
	g   *guard.PathGuard
	log *slog.Logger
	// base is the user's state directory (userstate.Base), where every
	// set is kept; "" when none is known (nothing survives the process).
	base string

	mu        sync.Mutex
	sets      map[string]*Set
	listeners []func(runID string)
}

// Open returns the Store over g's folders, with the sets earlier
// processes left for them in the user's state directory
// (userstate.Base; see runsDir): a set survives a crash and a restart.
// A set that cannot be read is logged and left where it is. Nothing in
// the project is ever read as a set.
func Open(g *guard.PathGuard, log *slog.Logger) (*Store, error) {
	return OpenIn(userstate.Base(os.Getenv), g, log)
}

// OpenIn is Open with the sets kept in the state directory base.
func OpenIn(base string, g *guard.PathGuard, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.Default()
	}
	if base == "" {
		return nil, userstate.ErrNoState
	}
	s := &Store{g: g, log: log, base: base, sets: map[string]*Set{}}
	s.Reload()
	return s, nil
}

// Reload looks again for stored sets of the guard's folders (after the
// editor's folders changed). Sets already open are kept as they are.
func (s *Store) Reload() {
	for _, root := range s.g.Roots() {
		st, err := s.stateOf(root)
		if err != nil {
			s.log.Warn("find the pending change sets", "folder", root, "error", err)
			continue
		}
		for _, id := range s.storedRuns(st) {
			if err := s.load(st, id); err != nil && !errors.Is(err, fs.ErrNotExist) {
				s.log.Warn("read a pending change set", "folder", root, "run", id, "error", err)
			}
		}
	}
}

// stateOf returns root's place in the state directory, taking over the
// state of the folder's earlier path when it was moved or renamed.
func (s *Store) stateOf(root string) (userstate.Folder, error) {
	st, err := userstate.For(s.base, root)
	if err != nil {
		return st, err
	}
	if from, err := st.Adopt(); err != nil {
		s.log.Warn("take over the state of a moved folder", "folder", root, "error", err)
	} else if from != "" {
		s.log.Info("the folder was moved: its pending changes and sessions follow it", "from", from, "to", st.Root)
	}
	return st, nil
}

// storedRuns lists the run directories kept for st, read by descriptor.
func (s *Store) storedRuns(st userstate.Folder) []string {
	if _, err := os.Lstat(st.Path(runsDir)); err != nil {
		return nil // nothing kept for this folder: nothing to create either
	}
	runs, err := st.Open(runsDir)
	if err != nil {
		s.log.Warn("read the pending change sets", "folder", st.Root, "error", err)
		return nil
	}
	defer runs.Close()
	d, err := runs.Open(".")
	if err != nil {
		return nil
	}
	defer d.Close()
	ents, err := d.ReadDir(maxRuns)
	if err != nil && !errors.Is(err, io.EOF) {
		s.log.Warn("read the pending change sets", "folder", st.Root, "error", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && validRunID(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// maxRuns bounds how many stored runs of one folder are read.
const maxRuns = 10000

// load adds st's part of run id to its set.
func (s *Store) load(st userstate.Folder, id string) error {
	f, m, dropped, err := loadFolder(st, id)
	if err != nil {
		return err
	}
	if len(dropped) > 0 {
		s.log.Warn("a stored change set names paths outside its folder; they are ignored", "folder", st.Root, "run", id, "paths", dropped)
	}
	root := st.Root
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
		f.close()
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
