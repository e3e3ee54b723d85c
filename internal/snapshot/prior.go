package snapshot

import (
	"sync/atomic"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// Before a write command the user approved runs inside a run, the scan
// that stamps the workspace also copies its files' content into memory,
// so that the run's undo can put back what the command changed or
// deleted. The copies live only until the command ends: then the
// ledger keeps the changed files' content, and the rest is dropped.
// Nothing is written anywhere, so the project never holds a copy.

// The budget of the copies: one file, and all of one command's together.
// A file beyond it is stamped but not copied; if the command changes it,
// the undo names it as not restorable.
const (
	maxPriorFile  = 1 << 20
	maxPriorTotal = 64 << 20
)

// copyState says whether a scan kept a file's content, and why not.
type copyState uint8

const (
	notCopied  copyState = iota // the scan kept no copies
	copied                      // scanFile.prior holds the content
	notRegular                  // a symbolic link, FIFO or device
	tooLarge                    // over maxPriorFile
	overBudget                  // the copies of this command reached maxPriorTotal
	unreadable                  // it could not be opened or read
	changing                    // it changed while it was being copied
)

// why is the reason an undo gives for a file it cannot restore.
func (c copyState) why() string {
	switch c {
	case notRegular:
		return "a command changed it and it is not a regular file, so its content before the command was not kept"
	case tooLarge:
		return "a command changed it and it was larger than 1 MiB, too large to keep its content before the command"
	case overBudget:
		return "a command changed it and the 64 MiB kept for the command's files before it ran was used up"
	case unreadable:
		return "a command changed it and it could not be read before the command ran"
	case changing:
		return "a command changed it and it was changing while its content was being kept"
	}
	return "a command changed it and its content before the run was not kept"
}

// Budget hands out the bytes one command's copies may use; the
// scan's workers share it.
type Budget struct {
	perFile, total int64
	used           atomic.Int64
}

// NewBudget is the budget of one command's copies: 1 MiB a file, 64 MiB
// in all.
func NewBudget() *Budget {
	return &Budget{perFile: maxPriorFile, total: maxPriorTotal}
}

// reserve takes n bytes for one copy, or says why it cannot.
func (b *Budget) reserve(n int64) copyState {
	if n > b.perFile {
		return tooLarge
	}
	if b.used.Add(n) > b.total {
		b.used.Add(-n)
		return overBudget
	}
	return copied
}

// release returns n bytes of a copy that was abandoned.
func (b *Budget) release(n int64) { b.used.Add(-n) }

// RecordUndo notes one file a command created, changed or deleted in
// the run's ledger: a created file is deleted again by the undo; a
// changed or deleted one gets its content from before the command back,
// or is named as not restorable when the scan has no copy of it.
func RecordUndo(l *filestate.Ledger, c Changed) {
	switch {
	case c.Kind == "created":
		l.RecordPrior(c.Path, nil, false)
	case c.before.copy == copied && !utf8.Valid(c.before.prior):
		// The undo goes through the editor as text: bytes that are not
		// UTF-8 would come back altered.
		l.RecordUnrestorable(c.Path, "a command changed it and it is not UTF-8 text, which an edit through the editor cannot put back exactly")
	case c.before.copy == copied:
		l.RecordPrior(c.Path, c.before.prior, true)
	default:
		l.RecordUnrestorable(c.Path, c.before.copy.why())
	}
}
