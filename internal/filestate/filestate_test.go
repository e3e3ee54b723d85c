package filestate

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

func disk(mod time.Time, size int) Stamp { return Stamp{ModTime: mod, Size: int64(size), Version: -1} }

func TestIsUnchanged(t *testing.T) {
	content := []byte("hello\n")
	st := disk(t0, len(content))
	tests := []struct {
		name          string
		offset, limit int
		stamp         Stamp
		content       []byte
		want          bool
	}{
		{"same", 1, 2000, st, content, true},
		{"other offset", 2, 2000, st, content, false},
		{"other limit", 1, 10, st, content, false},
		{"newer mtime", 1, 2000, disk(t0.Add(time.Nanosecond), len(content)), content, false},
		{"same stamp, other bytes", 1, 2000, st, []byte("HELLO\n"), false},
		{"same instant in another zone", 1, 2000, disk(t0.In(time.FixedZone("x", 3600)), len(content)), content, true},
		{"buffer version instead of disk", 1, 2000, Stamp{ModTime: t0, Size: 6, Version: 3}, content, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			s.RecordRead("/w/f", 1, 2000, st, content)
			if got := s.IsUnchanged("/w/f", tt.offset, tt.limit, tt.stamp, tt.content); got != tt.want {
				t.Errorf("IsUnchanged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLifecycle(t *testing.T) {
	s := New()
	c1, c2 := []byte("v1"), []byte("v2")
	const p = "/w/f"
	if s.IsUnchanged(p, 1, 10, disk(t0, 2), c1) {
		t.Error("unknown file is unchanged")
	}
	if s.CheckRead(p) == "" || s.WasRead(p) {
		t.Error("unknown file counts as read")
	}
	s.RecordRead(p, 1, 10, disk(t0, 2), c1)
	if s.CheckRead(p) != "" || !s.WasRead(p) {
		t.Error("read file does not count as read")
	}
	s.RecordWrite(p, disk(t0.Add(time.Second), 2), c2)
	if s.IsUnchanged(p, 1, 10, disk(t0.Add(time.Second), 2), c2) {
		t.Error("dedup still on after a write")
	}
	if s.CheckRead(p) != "" {
		t.Error("written file needs a read")
	}
	s.RecordRead(p, 1, 10, disk(t0.Add(time.Second), 2), c2)
	if !s.IsUnchanged(p, 1, 10, disk(t0.Add(time.Second), 2), c2) {
		t.Error("dedup off after a fresh read")
	}
	s.Forget(p)
	if s.IsUnchanged(p, 1, 10, disk(t0.Add(time.Second), 2), c2) {
		t.Error("dedup on after Forget")
	}
	if s.CheckRead(p) != "" {
		t.Error("Forget dropped the read record")
	}
	s.Forget("/w/never") // no record: nothing to do, no panic
}

// TestWrittenWithoutRead: a file the model created counts as known.
func TestWrittenWithoutRead(t *testing.T) {
	s := New()
	s.RecordWrite("/w/new", disk(t0, 1), []byte("x"))
	if s.CheckRead("/w/new") != "" || !s.WasRead("/w/new") {
		t.Error("a file the model wrote needs a read before its next edit")
	}
}

// TestSeen: files the user has open count as read for CheckRead, but
// are not deduplicated until the model has read them itself.
func TestSeen(t *testing.T) {
	s := New()
	open := map[string]bool{"/w/open": true}
	var mu sync.Mutex
	s.SetSeenFunc(func(p string) bool { mu.Lock(); defer mu.Unlock(); return open[p] })
	if s.CheckRead("/w/open") != "" {
		t.Error("an open buffer needs a read")
	}
	if s.CheckRead("/w/closed") == "" {
		t.Error("a closed unread file gives no warning")
	}
	if s.WasRead("/w/open") {
		t.Error("WasRead counts the user's buffers")
	}
	if s.IsUnchanged("/w/open", 1, 10, Stamp{Version: 1}, []byte("x")) {
		t.Error("an open buffer the model never read is deduplicated")
	}
	mu.Lock()
	delete(open, "/w/open") // the user closed it: the seen test is live
	mu.Unlock()
	if s.CheckRead("/w/open") == "" {
		t.Error("a closed buffer still counts as seen")
	}
}

func TestContext(t *testing.T) {
	if FromContext(context.Background()) != nil {
		t.Error("empty context has FileStates")
	}
	s := New()
	ctx := NewContext(t.Context(), s)
	if FromContext(ctx) != s {
		t.Error("FromContext does not return the stored FileStates")
	}
}

// TestConcurrentRuns: runs with their own FileStates, in parallel, never
// see each other's records; one FileStates is safe under -race.
func TestConcurrentRuns(t *testing.T) {
	var wg sync.WaitGroup
	runs := make([]*FileStates, 8)
	for i := range runs {
		runs[i] = New()
		ctx := NewContext(t.Context(), runs[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := FromContext(ctx)
			for j := range 200 {
				p := fmt.Sprintf("/w/run%d/f%d", i, j%10)
				c := []byte(p)
				s.RecordRead(p, 1, 10, disk(t0, len(c)), c)
				if !s.IsUnchanged(p, 1, 10, disk(t0, len(c)), c) {
					t.Errorf("run %d: own read not recorded", i)
				}
				s.RecordWrite(p, disk(t0, len(c)), c)
				_ = s.CheckRead("/w/shared")
			}
		}()
	}
	wg.Wait()
	for i, s := range runs {
		for j := range runs {
			if j != i && s.WasRead(fmt.Sprintf("/w/run%d/f0", j)) {
				t.Errorf("run %d sees run %d's record", i, j)
			}
		}
	}
}

func BenchmarkIsUnchanged10MB(b *testing.B) {
	content := make([]byte, 10<<20)
	for i := range content {
		content[i] = byte('a' + i%26)
	}
	s := New()
	st := disk(t0, len(content))
	s.RecordRead("/w/big", 1, 2000, st, content)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if !s.IsUnchanged("/w/big", 1, 2000, st, content) {
			b.Fatal("changed")
		}
	}
}

func TestChangedSince(t *testing.T) {
	s := New()
	const p = "/w/f"
	a, ab := []byte("a"), []byte("ab")
	if s.ChangedSince(p, disk(t0, 1), a) {
		t.Error("a file never seen counts as changed")
	}
	s.RecordRead(p, 1, 10, disk(t0, 1), a)
	if s.ChangedSince(p, disk(t0, 1), a) {
		t.Error("unchanged file counts as changed")
	}
	if s.ChangedSince(p, disk(t0.Add(time.Second), 1), a) {
		t.Error("a touch (new mtime, same bytes) counts as a change")
	}
	if !s.ChangedSince(p, disk(t0.Add(time.Second), 2), ab) {
		t.Error("new bytes are not a change")
	}
	s.RecordWrite(p, disk(t0.Add(2*time.Second), 2), ab)
	if s.ChangedSince(p, disk(t0.Add(2*time.Second), 2), ab) {
		t.Error("the model's own write counts as someone else's change")
	}
	if s.ChangedSince(p, Stamp{Size: 2, Version: 7}, ab) {
		t.Error("the same bytes in an editor buffer count as a change")
	}
	if !s.ChangedSince(p, Stamp{Size: 3, Version: 8}, []byte("abc")) {
		t.Error("an edited buffer is not a change")
	}
	// Beyond the hash limit a write is not hashed: a new stamp counts.
	big := make([]byte, writeHashLimit+1)
	s.RecordWrite(p, disk(t0, len(big)), big)
	if !s.ChangedSince(p, disk(t0.Add(time.Second), len(big)), big) {
		t.Error("an unhashed write does not fall back to the stamp")
	}
}

// TestRestored: a file known from an earlier turn's conversation counts
// as read, is never "changed since" (its state then is unknown) and
// never deduplicated; a real read afterwards takes over.
func TestRestored(t *testing.T) {
	s := New()
	s.RecordRestored("/w/a")
	now := Stamp{Version: 3}
	if s.CheckRead("/w/a") != "" || !s.WasRead("/w/a") {
		t.Error("a restored file does not count as read")
	}
	if s.ChangedSince("/w/a", now, []byte("x")) {
		t.Error("a restored file counts as changed since: its state was never known")
	}
	if s.IsUnchanged("/w/a", 0, 0, now, []byte("x")) {
		t.Error("a restored file is answered unchanged: the model may not have its content")
	}
	s.RecordRead("/w/a", 0, 0, now, []byte("x"))
	if !s.ChangedSince("/w/a", Stamp{Version: 4}, []byte("y")) {
		t.Error("after a real read a change is not seen")
	}
	s.RecordRestored("/w/a") // already known: left as it is
	if !s.ChangedSince("/w/a", Stamp{Version: 4}, []byte("y")) {
		t.Error("RecordRestored overwrote a real read")
	}
}

// TestChangesCounts: the run's writes and the commands that changed a
// file count as changes, also of a file the model never read and of
// one a command deleted; reads do not.
func TestChangesCounts(t *testing.T) {
	s := New()
	st := Stamp{Version: -1}
	s.RecordRead("/w/a.go", 1, 0, st, []byte("a"))
	if n := s.Changes("/w/a.go"); n != 0 {
		t.Fatalf("after a read: %d changes, want 0", n)
	}
	s.RecordWrite("/w/a.go", st, []byte("b"))
	s.RecordCommandChange("/w/a.go", "gofmt -w a.go")
	s.RecordRead("/w/a.go", 1, 0, st, []byte("c"))
	if n := s.Changes("/w/a.go"); n != 2 {
		t.Errorf("after a write, a command's change and a read: %d changes, want 2", n)
	}
	s.RecordCommandChange("/w/new.go", "go generate")
	s.Drop("/w/a.go")
	if a, n := s.Changes("/w/a.go"), s.Changes("/w/new.go"); a != 3 || n != 1 {
		t.Errorf("after a drop: a.go %d changes (want 3), a file never read %d (want 1)", a, n)
	}
}
