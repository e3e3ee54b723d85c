package agent

import (
	"log/slog"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Out-of-date reads. A read_file result shows a file as it was when the
// model read it, and every later request sends it again. Once the file
// has changed since (the run's own edits, a command that rewrote it)
// and the model has left that file alone for staleAfter turns, later
// requests carry a short note in its place: the text is no longer the
// file's, the model knows what it changed, and on recorded real tasks
// these resent reads were the largest part of the history.
//
// While the model still works on a file (reads or changes it within
// staleAfter turns) its reads stay, so that it can make its next edit
// from them; a model that comes back to the file later reads it again,
// in full, since a changed file is never answered "unchanged".
//
// Replacing an earlier message changes the request's prefix: a prompt
// cache misses from there once, then reads the new prefix again. It
// happens once per read, never to the last turn's results.
//
// Only this loop's reads are tracked: the turns of an earlier reply in
// the same conversation are left as they are.

// staleAfter is how many turns the model must leave a changed file
// alone before its earlier reads of it are replaced.
const staleAfter = 2

// staleNote replaces the text of an out-of-date read.
const staleNote = "[out of date: the file has changed since this read; read it again for its current text]"

// readRef is one read_file result whose text may go out of date.
type readRef struct {
	call    string // the result's CallID
	path    string // absolute
	bytes   int    // the length of the output's prefix that shows the file
	outLen  int    // the output's length; trimming or cutting changes it
	changes int    // FileStates.Changes(path) when it was read
}

// staleReads tracks the run's reads and when their files last changed.
type staleReads struct {
	reads   []readRef
	seen    map[string]int // path → FileStates.Changes at the last look
	touched map[string]int // path → the last step that read or changed it
}

// note records read, the text shown by res, a result of step's calls,
// taken when the file had changed changes times.
func (s *staleReads) note(step int, res ToolResult, read *tools.ReadText, changes int) {
	if s.seen == nil {
		s.seen, s.touched = map[string]int{}, map[string]int{}
	}
	s.reads = append(s.reads, readRef{call: res.CallID, path: read.Path, bytes: read.Bytes, outLen: len(res.Output), changes: changes})
	s.seen[read.Path], s.touched[read.Path] = changes, step
}

// replace puts staleNote in place of every read of msgs that is out of
// date before model turn step, and returns the indices of the messages
// it changed. Changes seen now were made by the calls of step-1.
func (s *staleReads) replace(step int, states *filestate.FileStates, msgs []Message) []int {
	if len(s.reads) == 0 || states == nil {
		return nil
	}
	now := make(map[string]int, len(s.seen))
	for p, was := range s.seen {
		c := states.Changes(p)
		if c != was {
			s.seen[p], s.touched[p] = c, step-1
		}
		now[p] = c
	}
	var changed []int
	kept := s.reads[:0]
	for _, r := range s.reads {
		if now[r.path] == r.changes || step-s.touched[r.path] <= staleAfter {
			kept = append(kept, r)
			continue
		}
		if i, ok := replaceResult(msgs, r); ok {
			changed = append(changed, i)
			slog.Debug("agent: an out-of-date read left later requests", "path", r.path, "step", step)
		}
	}
	s.reads = kept
	return changed
}

// replaceResult puts staleNote in place of r's text in msgs, and returns
// the index of the message it changed. A result no longer there (the
// turn was compacted) is left alone; one that was trimmed or cut to fit
// is replaced whole.
func replaceResult(msgs []Message, r readRef) (int, bool) {
	for i := len(msgs) - 1; i >= 1; i-- {
		m := &msgs[i]
		for j, res := range m.ToolResults {
			if res.CallID != r.call {
				continue
			}
			out := staleNote
			if len(res.Output) == r.outLen && r.bytes <= r.outLen {
				out += res.Output[r.bytes:]
			}
			m.ToolResults = append([]ToolResult(nil), m.ToolResults...) // never write through to a caller's slice
			m.ToolResults[j].Output = out
			return i, true
		}
	}
	return 0, false
}

// replaceStale is prepare's step for out-of-date reads.
func (l *loop) replaceStale(step int, req *ModelRequest) {
	for _, i := range l.stale.replace(step, l.states, req.Messages) {
		l.budget.reset(i)
	}
}
