package changeset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

// A set's operations (a keep, a discard, a command over its layer) are
// one at a time across processes too: the editor's server, a second
// agent's server in the same checkout and `cb-ls changes --keep` in a
// terminal each have a Store over the same sets. Each takes s.op in its
// own process, then an exclusive lock on each folder's run directory
// (lockName, flock where the system has it), so that no keep reads the
// layer while a command of another process writes it, and no swap a
// command makes can come between a keep's checks and its writes. Once
// it holds the lock, the set takes in what another process did since it
// last looked (refresh): the manifest, if it was rewritten, and the
// layer.

// lockName is the lock file in a folder's run directory.
const lockName = "lock"

// opLock is what lockOps holds.
type opLock struct {
	s     *Set
	files []*os.File
}

// lockOps takes the set's operations lock for the folders of roots (all
// the set's folders when roots is nil), waiting for another process's
// operation to end or ctx to be done, and brings the set up to date.
// s.op is taken first; the returned unlock releases both.
func (s *Set) lockOps(ctx context.Context, roots []string) (*opLock, error) {
	s.op.Lock()
	l := &opLock{s: s}
	s.mu.Lock()
	var folders []*folder
	if roots == nil {
		for _, r := range s.sortedRoots() {
			folders = append(folders, s.folders[r])
		}
	} else {
		for _, r := range roots {
			if f, ok := s.folders[r]; ok {
				folders = append(folders, f)
			}
		}
	}
	s.mu.Unlock()
	for _, f := range folders {
		if err := f.ensure(); err != nil {
			l.unlock()
			return nil, err
		}
		lf, err := f.run.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			l.unlock()
			return nil, fmt.Errorf("lock the change set of %s: %w", f.root, err)
		}
		if err := flockWait(ctx, lf); err != nil {
			lf.Close()
			l.unlock()
			return nil, fmt.Errorf("lock the change set of %s: %w", f.root, err)
		}
		l.files = append(l.files, lf)
	}
	s.mu.Lock()
	var errs []error
	for _, f := range folders {
		if err := s.refresh(ctx, f); err != nil {
			errs = append(errs, err)
		}
	}
	s.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		l.unlock()
		return nil, err
	}
	return l, nil
}

// unlock releases the lock files, then s.op.
func (l *opLock) unlock() {
	for _, f := range l.files {
		f.Close() // closing the descriptor releases its flock
	}
	l.files = nil
	l.s.op.Unlock()
}

// stamp tells one written manifest from another: each write renames a
// new file over the old one, so its inode and time change.
type stamp struct {
	ino, size int64
	mod       int64
}

// manifestStamp returns the stamp of the manifest on disk, the zero
// stamp when there is none.
func (f *folder) manifestStamp() stamp {
	if f.run == nil {
		return stamp{}
	}
	fi, err := f.run.Lstat(manifestName)
	if err != nil {
		return stamp{}
	}
	return stamp{ino: inode(fi), size: fi.Size(), mod: fi.ModTime().UnixNano()}
}

// refresh takes in what another process did to f since this one last
// wrote or read its manifest: the records and the news, then the layer.
// s.mu is held.
func (s *Set) refresh(ctx context.Context, f *folder) error {
	now := f.manifestStamp()
	if now == f.stamp {
		return nil
	}
	f.stamp = now
	if now == (stamp{}) {
		// Another process kept or discarded everything: nothing is left.
		f.files = map[string]*fileRecord{}
		s.pending[f.root] = map[string]pendingEntry{}
		s.files = nil
		return nil
	}
	b, err := userstate.ReadFile(f.run, manifestName, maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the change set of %s: %w", f.root, err)
	}
	m, dropped, err := parseManifest(b)
	if err != nil {
		return fmt.Errorf("the change set of %s: %w", f.root, err)
	}
	if len(dropped) > 0 {
		s.store.log.Warn("a stored change set names paths outside its folder; they are ignored", "folder", f.root, "run", s.id, "paths", dropped)
	}
	f.files = m.Files
	if f.files == nil {
		f.files = map[string]*fileRecord{}
	}
	if r := s.sortedRoots(); len(r) > 0 && r[0] == f.root {
		s.news = m.News
	}
	return s.rescanContext(ctx, f)
}
