// Package filestate records, for one agent run, which files the model
// has read and written, so that an unchanged re-read can be answered
// without the content and an edit of an unread file can carry a warning.
//
// One FileStates belongs to one run and travels in its context.Context;
// concurrent runs never see each other's records. filestate imports
// nothing else of cb-ls.
package filestate

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Stamp says which state of a file some content came from without the
// content itself: the disk's modification time and size, or an editor
// buffer's version. Two stamps are equal only if every field is.
type Stamp struct {
	ModTime time.Time
	Size    int64
	// Version is the editor buffer's version, or -1 for disk content.
	Version int64
}

// Equal reports whether a and b describe the same state.
func (a Stamp) Equal(b Stamp) bool {
	return a.ModTime.Equal(b.ModTime) && a.Size == b.Size && a.Version == b.Version
}

// seed is process-wide: hashes are never persisted or compared across
// processes, and maphash is fast enough to hash 10 MB in about a millisecond.
var seed = maphash.MakeSeed()

// Hash returns the content hash FileStates compares.
func Hash(content []byte) uint64 { return maphash.Bytes(seed, content) }

type record struct {
	stamp         Stamp
	hash          uint64
	hashed        bool // hash is the hash of the content at stamp
	offset, limit int
	read          bool // the model read it (not just the editor showed it)
	written       bool
	dedup         bool
	// restored: known from an earlier turn's conversation only, at a
	// state this FileStates never saw (RecordRestored).
	restored bool
	// changedBy is the command that changed the file since the model
	// last read or wrote it (RecordCommandChange).
	changedBy string
}

// FileStates is safe for concurrent use.
type FileStates struct {
	mu    sync.Mutex
	files map[string]*record
	seen  func(path string) bool
	told  map[string]bool // see FirstTime
	// changes counts, per path, the changes the run saw: its own writes
	// and the commands that changed the file (see Changes). It outlives
	// Drop, which forgets the record but not that the file changed.
	changes map[string]int
}

// New returns empty FileStates.
func New() *FileStates { return &FileStates{files: map[string]*record{}} }

// FirstTime reports whether key is new in this run, and remembers it:
// for what a run tells the model once in full and in short after (exec's
// description of the sandbox).
func (s *FileStates) FirstTime(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.told[key] {
		return false
	}
	if s.told == nil {
		s.told = map[string]bool{}
	}
	s.told[key] = true
	return true
}

// SetSeenFunc installs a live test for files the user has in front of
// them (editor buffers). Such files count as read for CheckRead but are
// not deduplicated until the model has read them itself.
func (s *FileStates) SetSeenFunc(seen func(path string) bool) {
	s.mu.Lock()
	s.seen = seen
	s.mu.Unlock()
}

// RecordRead notes that the model read path at offset/limit, seeing
// content taken at stamp. It turns dedup on for the file.
func (s *FileStates) RecordRead(path string, offset, limit int, stamp Stamp, content []byte) {
	h := Hash(content)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec(path)
	r.stamp, r.hash, r.hashed, r.offset, r.limit = stamp, h, true, offset, limit
	r.read, r.dedup, r.restored, r.changedBy = true, true, false, ""
}

// RecordRestored notes that the model read or wrote path in an earlier
// turn of the conversation, which this FileStates did not see (a reply
// to a stored run, after a restart): the file counts as read, so edits
// do not warn, but its state then is unknown, so ChangedSince cannot
// tell and says no, and no read is answered "unchanged". A file already
// known is left as it is.
func (s *FileStates) RecordRestored(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.files[path]; ok && (r.read || r.written) {
		return
	}
	r := s.rec(path)
	r.read, r.restored, r.dedup, r.hashed = true, true, false, false
}

// RecordWrite notes that the model wrote content to path, now at stamp.
// It turns dedup off: the next read returns the content again.
//
// Content up to writeHashLimit is hashed so that ChangedSince can tell
// a new stamp with the same bytes (a buffer closed, a file touched) from
// a real change. Larger content is not: dedup is off, so the hash would
// only serve ChangedSince, and hashing costs 5 ms per 10 MB write.
func (s *FileStates) RecordWrite(path string, stamp Stamp, content []byte) {
	var h uint64
	hashed := len(content) <= writeHashLimit
	if hashed {
		h = Hash(content)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec(path)
	r.stamp, r.hash, r.hashed = stamp, h, hashed
	r.written, r.dedup, r.restored, r.changedBy = true, false, false, ""
	s.changed(path)
}

// changed counts a change of path; s.mu is held.
func (s *FileStates) changed(path string) {
	if s.changes == nil {
		s.changes = map[string]int{}
	}
	s.changes[path]++
}

// Changes is how many changes of path the run has seen so far: its
// own writes and the commands that changed the file. A read taken when
// Changes was n shows a file that has changed since once Changes passes
// n. The user's own edits in the editor are not counted.
func (s *FileStates) Changes(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes[path]
}

// writeHashLimit bounds the content RecordWrite hashes.
const writeHashLimit = 1 << 20

// Forget drops dedup for path, e.g. when an editor buffer changed after
// the model read it.
func (s *FileStates) Forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.files[path]; ok {
		r.dedup = false
	}
}

// ForgetAll drops dedup for every file: the conversation no longer
// holds what the model read (it was summarised or trimmed away), so an
// "unchanged" answer would point at content the model cannot see.
func (s *FileStates) ForgetAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.files {
		r.dedup = false
	}
}

// Paths returns the files the model read or wrote in this run, in no
// particular order.
func (s *FileStates) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.files))
	for p, r := range s.files {
		if r.read || r.written {
			out = append(out, p)
		}
	}
	return out
}

// IsUnchanged reports whether a read of path at offset/limit may be
// answered with "unchanged": dedup is on, offset and limit match the last
// read, and both the stamp and the content hash are as they were (an
// equal stamp with different bytes is a change).
func (s *FileStates) IsUnchanged(path string, offset, limit int, stamp Stamp, content []byte) bool {
	s.mu.Lock()
	r, ok := s.files[path]
	if !ok || !r.dedup || r.offset != offset || r.limit != limit || !r.stamp.Equal(stamp) {
		s.mu.Unlock()
		return false
	}
	want := r.hash
	s.mu.Unlock()
	return Hash(content) == want
}

// CheckRead returns a warning when path was neither read nor written in
// this run nor shown to the user by the editor, and "" otherwise.
func (s *FileStates) CheckRead(path string) string {
	s.mu.Lock()
	r, ok := s.files[path]
	seen := s.seen
	s.mu.Unlock()
	if ok && (r.read || r.written) {
		return ""
	}
	if seen != nil && seen(path) {
		return ""
	}
	return "Warning: this file was not read in this session before editing. Read a file before you edit it."
}

// ChangedSince reports whether path, now at stamp with content, is no
// longer what the model last read or wrote in this run: someone else
// (the user, a formatter, another process) changed it since. A new
// stamp with the same bytes is no change when the content hash is known.
// It is false for a file the model never read or wrote.
func (s *FileStates) ChangedSince(path string, stamp Stamp, content []byte) bool {
	s.mu.Lock()
	r, ok := s.files[path]
	if !ok || !(r.read || r.written) || r.restored || r.stamp.Equal(stamp) {
		s.mu.Unlock()
		return false
	}
	hashed, want := r.hashed, r.hash
	s.mu.Unlock()
	return !hashed || Hash(content) != want
}

// WasRead reports whether the model read or wrote path in this run.
func (s *FileStates) WasRead(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.files[path]
	return ok && (r.read || r.written)
}

func (s *FileStates) rec(path string) *record {
	r, ok := s.files[path]
	if !ok {
		r = &record{}
		s.files[path] = r
	}
	return r
}

type ctxKey struct{}

// NewContext returns ctx carrying s.
func NewContext(ctx context.Context, s *FileStates) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext returns the FileStates in ctx, or nil.
func FromContext(ctx context.Context) *FileStates {
	s, _ := ctx.Value(ctxKey{}).(*FileStates)
	return s
}

// RecordCommandChange notes that command (a formatter, a generator)
// changed path behind the tools' back. A file the model read or wrote
// still counts as read, so an edit does not claim it never was, but its
// next read is answered in full, and ChangedBy names the command until
// the model reads or writes it again. A file the model never read is
// left unknown.
func (s *FileStates) RecordCommandChange(path, command string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changed(path)
	r, ok := s.files[path]
	if !ok || !(r.read || r.written) {
		delete(s.files, path)
		return
	}
	r.changedBy, r.dedup = command, false
}

// ChangedBy is the command that changed path since the model last read
// or wrote it, or "".
func (s *FileStates) ChangedBy(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.files[path]; ok {
		return r.changedBy
	}
	return ""
}

// Drop forgets everything about path: it counts as never read, so the
// next edit warns and the next read is answered in full. Used when a
// command changed the file behind the tools' back.
func (s *FileStates) Drop(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changed(path)
	delete(s.files, path)
}
