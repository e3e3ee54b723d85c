package complete

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrSuperseded is the cause of a completion's context when a newer
// keystroke in its document made it moot.
var ErrSuperseded = errors.New("superseded by a newer change to the document")

// historySize is how many edits the Tracker keeps.
const historySize = 64

// Edit is one place the user edited: a document and a line, with a
// sequence number that orders edits across documents. Typing along one
// line is one Edit, its Seq the last keystroke's.
type Edit struct {
	Doc  string // the document's key (its URI)
	Line int    // 0-based line where the change started; -1 for a whole-document change
	Seq  uint64
}

// Tracker is what the editor did, kept in one place for completions and
// for what may come after them (next-edit suggestions): the recent
// edits, and the completion requests in flight per document, which a
// change to that document supersedes.
//
// Changed runs on the keystroke path: an atomic load while nothing
// asked for completions on the connection, then a mutex, a comparison,
// no allocation.
type Tracker struct {
	// active is set by the first Begin: until a completion is asked,
	// keystrokes record nothing and cost nothing.
	active  atomic.Bool
	mu      sync.Mutex
	ring    [historySize]Edit
	n       int // edits in ring
	last    int // index of the newest
	seq     uint64
	pending map[string][]*pending
}

type pending struct {
	cancel context.CancelCauseFunc
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{pending: map[string][]*pending{}} }

// Changed records a change to doc starting at line and supersedes the
// completions in flight for doc. It records nothing before the first
// completion request (Begin).
func (t *Tracker) Changed(doc string, line int) {
	if !t.active.Load() {
		return
	}
	t.mu.Lock()
	t.seq++
	if e := &t.ring[t.last]; t.n > 0 && e.Line == line && e.Doc == doc {
		e.Seq = t.seq
	} else {
		if t.n > 0 {
			t.last = (t.last + 1) % historySize
		}
		t.ring[t.last] = Edit{Doc: doc, Line: line, Seq: t.seq}
		t.n = min(t.n+1, historySize)
	}
	var moot []*pending
	if len(t.pending) > 0 {
		if moot = t.pending[doc]; moot != nil {
			delete(t.pending, doc)
		}
	}
	t.mu.Unlock()
	for _, p := range moot {
		p.cancel(ErrSuperseded)
	}
}

// Closed supersedes the completions in flight for doc, which the
// editor closed.
func (t *Tracker) Closed(doc string) {
	t.mu.Lock()
	moot := t.pending[doc]
	delete(t.pending, doc)
	t.mu.Unlock()
	for _, p := range moot {
		p.cancel(ErrSuperseded)
	}
}

// Recent returns up to n edits, newest first, at most one per document
// and line.
func (t *Tracker) Recent(n int) []Edit {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Edit
	for i := 0; i < t.n && len(out) < n; i++ {
		e := t.ring[(t.last-i+historySize)%historySize]
		dup := false
		for _, o := range out {
			if o.Doc == e.Doc && o.Line == e.Line {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// LastEdited returns when doc was last edited (an Edit's Seq), 0 if it
// is not in the history.
func (t *Tracker) LastEdited(doc string) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := 0; i < t.n; i++ {
		if e := t.ring[(t.last-i+historySize)%historySize]; e.Doc == doc {
			return e.Seq
		}
	}
	return 0
}

// Activate starts recording edits before any completion was asked:
// next-edit suggestions read the history from the first keystroke.
func (t *Tracker) Activate() { t.active.Store(true) }

// Begin returns a context that ends, with ErrSuperseded as its cause,
// at the next change to doc; done forgets it. Check the document's
// version after Begin: a change that came before is not seen here.
func (t *Tracker) Begin(ctx context.Context, doc string) (context.Context, func()) {
	t.active.Store(true)
	ctx, cancel := context.WithCancelCause(ctx)
	p := &pending{cancel: cancel}
	t.mu.Lock()
	t.pending[doc] = append(t.pending[doc], p)
	t.mu.Unlock()
	return ctx, func() {
		t.mu.Lock()
		list := t.pending[doc]
		for i, q := range list {
			if q == p {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(t.pending, doc)
		} else {
			t.pending[doc] = list
		}
		t.mu.Unlock()
		cancel(nil)
	}
}
