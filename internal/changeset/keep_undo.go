package changeset

import (
	"bytes"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

// A keep lands the run's hunks merged over whatever the user typed, so
// the file it leaves holds the user's changes too. The run's undo
// ledger must hold the run's part alone: an undo reverts exactly the
// run's kept hunks (three-way, over whatever the user typed by then)
// and never restores the text of an earlier keep over typing made
// since.
//
// The first keep of a file records the user's text it merged over as
// the prior: the run's part is what lies between it and the result. A
// later keep over a file the user changed since the run last wrote it
// takes the run's earlier changes out of the user's current text
// (diff.Merge3) and records that as the new prior. Where the user's
// changes touch the run's earlier ones, the two can no longer be told
// apart: the ledger then says so, and the undo names the file instead
// of restoring anything over the user's text.

// recordKept notes in l what the keep of p landed, result being the
// file's content after it (nil for a deletion).
func recordKept(l *filestate.Ledger, p keepPlan, result []byte) {
	path := p.file.Path.Abs
	cur := p.change.Base.Content // the user's text the hunks were merged over
	existed, deleted := !p.change.Create, p.change.Delete
	if result == nil && !deleted {
		result = p.change.After
	}
	e, ok := l.Entry(path)
	asLeft := ok && (e.Deleted && !existed || !e.Deleted && existed && bytes.Equal(e.Result, cur))
	if !ok || e.Unrestorable || !e.Known || asLeft {
		// The run's first write of the file, or the file as the run
		// left it: the prior already holds all of the user's text.
		l.RecordWrite(path, existed, cur, result, deleted)
		return
	}
	if !e.Existed {
		l.RecordEntangled(path, "the run created it and it was changed since; delete it yourself if you want it gone")
		return
	}
	if e.Deleted || !existed {
		l.RecordEntangled(path, "it was deleted or made again between the run's changes; put it back by hand")
		return
	}
	prior, ok := diff.Merge3(e.Result, cur, e.Prior)
	if !ok {
		l.RecordEntangled(path, "it was changed between two keeps where the run changed it too; undo the run's changes there by hand")
		return
	}
	l.RecordRebased(path, prior, result, deleted)
}
