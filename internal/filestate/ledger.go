package filestate

import (
	"context"
	"slices"
	"sync"
)

// Ledger records, for one run, every file the run changed and what the
// file held before the run first touched it, so that the whole run can
// be undone. The file tools record each write that landed; a write
// command (exec) records the files it is about to change with
// RecordPrior before it runs, or names the ones it could not keep with
// RecordUnrestorable.
//
// A Ledger belongs to one run and travels in its context.Context
// (NewLedgerContext). It is safe for concurrent use.
type Ledger struct {
	mu    sync.Mutex
	files map[string]*LedgerEntry
	order []string
	// seq counts the records; touched is each file's last one, so that a
	// turn can tell the files it changed itself (Mark, ChangedSince).
	seq     uint64
	touched map[string]uint64
}

// LedgerEntry is one file a run changed.
type LedgerEntry struct {
	// Path is the file's absolute path.
	Path string
	// Existed is false for a file the run created: undoing deletes it.
	Existed bool
	// Prior is the content before the run (when Existed).
	Prior []byte
	// Unrestorable means the content before the run was not kept (a
	// command changed a file too large to copy, or unreadable); an undo
	// names the file instead of restoring it, with Why.
	Unrestorable bool
	Why          string
	// Result is what the run's last write left in the file; Known is
	// false when a command changed the file (its result was never seen
	// by the tools), and Deleted is true when the run removed the file.
	Result  []byte
	Known   bool
	Deleted bool
}

// NewLedger returns an empty Ledger.
func NewLedger() *Ledger {
	return &Ledger{files: map[string]*LedgerEntry{}, touched: map[string]uint64{}}
}

// Mark returns a point in the ledger's records, for ChangedSince.
func (l *Ledger) Mark() uint64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// ChangedSince returns the files recorded after mark (Mark), in the
// order the run first changed them: what one turn of the run changed in
// the user's files.
func (l *Ledger) ChangedSince(mark uint64) []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.order {
		if l.touched[p] > mark {
			out = append(out, p)
		}
	}
	return out
}

// touch records that path was recorded now. Called with l.mu held.
func (l *Ledger) touch(path string) {
	l.seq++
	l.touched[path] = l.seq
}

// RecordWrite notes that a file tool changed path from prior (existed
// false: the file was new) to result (deleted: removed). Only the first
// record of a file keeps its prior content: that is what an undo puts
// back.
func (l *Ledger) RecordWrite(path string, existed bool, prior, result []byte, deleted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path, existed, prior)
	e.Result, e.Known, e.Deleted = result, true, deleted
	l.touch(path)
}

// Entry returns path's entry, if the run changed it: a caller that
// lands the run's change over the user's later edits (a keep of pending
// changes) works out from it the prior of RecordRebased.
func (l *Ledger) Entry(path string) (LedgerEntry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.files[path]
	if !ok {
		return LedgerEntry{}, false
	}
	return *e, true
}

// RecordRebased notes a write of the run to path (now result) over
// changes the user made since the run's last write, as RecordWrite does,
// but with prior as the entry's new prior: what the file would hold
// without any of the run's changes, the user's changes kept (the caller
// merged them in). The run's part of the file is then exactly what
// lies between prior and result, and an undo reverts that alone.
func (l *Ledger) RecordRebased(path string, prior, result []byte, deleted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path, true, prior)
	e.Prior = slices.Clone(prior)
	if e.Prior == nil {
		e.Prior = []byte{}
	}
	e.Result, e.Known, e.Deleted = result, true, deleted
	l.touch(path)
}

// RecordEntangled notes that the run's write to path landed over
// changes of the user's that touch the run's earlier ones, so that the
// run's part can no longer be told from the user's: an undo names the
// file with why instead of putting anything back over the user's text.
func (l *Ledger) RecordEntangled(path, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path, true, nil)
	e.Unrestorable, e.Why, e.Known = true, why, false
	l.touch(path)
}

// RecordPrior notes, before a command the user approved runs, what path
// holds (existed false: nothing). A command's result is never seen by
// the tools, so an undo restores prior over whatever the file holds by
// then. Calling it for a file the run already changed keeps the older
// record.
func (l *Ledger) RecordPrior(path string, prior []byte, existed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path, existed, prior)
	e.Known = false
	l.touch(path)
}

// RecordUnrestorable notes that a command changed path and its content
// before the run was not kept, why (for the user) says so.
func (l *Ledger) RecordUnrestorable(path, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.touch(path)
	if _, ok := l.files[path]; ok {
		l.files[path].Known = false // the older record still holds the content before the run
		return
	}
	e := l.entry(path, true, nil)
	e.Unrestorable, e.Why, e.Known = true, why, false
}

// entry returns path's entry, creating it with existed and prior.
func (l *Ledger) entry(path string, existed bool, prior []byte) *LedgerEntry {
	e, ok := l.files[path]
	if !ok {
		e = &LedgerEntry{Path: path, Existed: existed, Prior: slices.Clone(prior)}
		if existed && e.Prior == nil {
			e.Prior = []byte{}
		}
		l.files[path] = e
		l.order = append(l.order, path)
	}
	return e
}

// Files returns the entries in the order the run first changed them.
func (l *Ledger) Files() []LedgerEntry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LedgerEntry, len(l.order))
	for i, p := range l.order {
		out[i] = *l.files[p]
	}
	return out
}

// Paths returns the files the run changed, in order.
func (l *Ledger) Paths() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.order)
}

type ledgerKey struct{}

// NewLedgerContext returns ctx carrying l.
func NewLedgerContext(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// LedgerFromContext returns the Ledger in ctx, or nil (no run records
// one: a one-off tool call).
func LedgerFromContext(ctx context.Context) *Ledger {
	l, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return l
}
