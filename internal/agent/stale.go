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
// A reply goes on with the reads of the conversation's earlier turns
// (ToolResult.Read, kept in memory): they count as read before the
// reply's first turn. A conversation restored from disk has no marks,
// and its reads stay as they are.

// staleAfter is how many turns the model must leave a changed file
// alone before its earlier reads of it are replaced.
const staleAfter = 2

// staleNote replaces the text of an out-of-date read.
const staleNote = "[out of date: the file has changed since this read; read it again for its current text]"

// ReadMark is what a read_file result's text was taken from.
type ReadMark struct {
	Path    string // absolute
	Bytes   int    // the length of the output's prefix that shows the file
	OutLen  int    // the output's length; trimming or cutting changes it
	Changes int    // FileStates.Changes(Path) when it was read
}

// readRef is one read_file result whose text may go out of date.
type readRef struct {
	call string // the result's CallID
	*ReadMark
}

// staleReads tracks the run's reads and when their files last changed.
type staleReads struct {
	reads   []readRef
	seen    map[string]int // path → FileStates.Changes at the last look
	touched map[string]int // path → the last step that read or changed it
}

// mark returns the ReadMark of res, a result showing read, taken when the
// file had changed changes times.
func mark(res ToolResult, read *tools.ReadText, changes int) *ReadMark {
	return &ReadMark{Path: read.Path, Bytes: read.Bytes, OutLen: len(res.Output), Changes: changes}
}

// note records m, the mark of call's result in step.
func (s *staleReads) note(step int, call string, m *ReadMark) {
	if s.seen == nil {
		s.seen, s.touched = map[string]int{}, map[string]int{}
	}
	s.reads = append(s.reads, readRef{call: call, ReadMark: m})
	s.seen[m.Path], s.touched[m.Path] = m.Changes, step
}

// seed takes up the reads of earlier turns of the conversation in msgs
// (a reply's history), as if read before this loop's first step: one
// whose file has changed since gives way once the model leaves the file
// alone for staleAfter turns of this reply.
func (s *staleReads) seed(msgs []Message, states *filestate.FileStates) {
	if states == nil {
		return
	}
	for _, m := range msgs {
		for _, res := range m.ToolResults {
			if res.Read == nil {
				continue
			}
			s.note(0, res.CallID, res.Read)
			s.seen[res.Read.Path] = states.Changes(res.Read.Path)
		}
	}
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
		if now[r.Path] == r.Changes || step-s.touched[r.Path] <= staleAfter {
			kept = append(kept, r)
			continue
		}
		if i, ok := replaceResult(msgs, r); ok {
			changed = append(changed, i)
			slog.Debug("agent: an out-of-date read left later requests", "path", r.Path, "step", step)
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
			if len(res.Output) == r.OutLen && r.Bytes <= r.OutLen {
				out += res.Output[r.Bytes:]
			}
			m.ToolResults = append([]ToolResult(nil), m.ToolResults...) // never write through to a caller's slice
			m.ToolResults[j].Output, m.ToolResults[j].Read = out, nil
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
