package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// cmdUndoRun puts back every file a run changed: {runId?} (default: the
// last run) → {runId, undone, restored, deleted, left, message}.
const cmdUndoRun = "catbuddy.undoRun"

// keptLedgers is how many runs can be undone: the most recent ones. A
// ledger holds the old content of every file its run changed.
const keptLedgers = 20

// ledgers keeps the recent runs' ledgers; guarded by runs.mu.
type ledgers struct {
	byRun  map[string]*filestate.Ledger
	order  []string // oldest first
	undone map[string]bool
}

// keepLedger remembers run id's ledger, forgetting the oldest beyond
// keptLedgers. Called with rs.mu held.
func (l *ledgers) keepLedger(id string, led *filestate.Ledger) {
	if l.byRun == nil {
		l.byRun, l.undone = map[string]*filestate.Ledger{}, map[string]bool{}
	}
	l.byRun[id] = led
	l.order = append(l.order, id)
	for len(l.order) > keptLedgers {
		delete(l.byRun, l.order[0])
		delete(l.undone, l.order[0])
		l.order = l.order[1:]
	}
}

// undoResult is catbuddy.undoRun's answer.
type undoResult struct {
	RunID    string           `json:"runId"`
	Undone   bool             `json:"undone"`
	Restored []string         `json:"restored"`
	Deleted  []string         `json:"deleted"`
	Left     []tools.UndoLeft `json:"left"`
	Message  string           `json:"message"`
}

// undoCommand handles catbuddy.undoRun: one reviewed workspace/applyEdit
// that puts back the run's files (tools.UndoRun says how).
func (rs *runs) undoCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	id, err := optionalRunID(args)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	if id == "" {
		id = rs.last
	}
	led, known := rs.byRun[id]
	_, active := rs.active[id]
	undone := rs.undone[id]
	rs.mu.Unlock()
	switch {
	case id == "":
		return nil, errors.New("no run yet on this connection: nothing to undo")
	case active:
		return nil, fmt.Errorf("run %s is still going: cancel it (catbuddy.cancel) or wait for it to end, then undo it", id)
	case !known:
		return nil, fmt.Errorf("cannot undo run %q: unknown run, or older than the last %d runs", id, keptLedgers)
	case undone:
		return nil, fmt.Errorf("run %s was already undone", id)
	}
	out := undoResult{RunID: id, Restored: []string{}, Deleted: []string{}, Left: []tools.UndoLeft{}}
	entries := led.Files()
	if len(entries) == 0 {
		out.Message = fmt.Sprintf("Run %s changed no file: nothing to undo.", id)
		return out, nil
	}
	res, err := rs.s.toolCtx.UndoRun(ctx, entries)
	out.Left = append(out.Left, res.Left...)
	switch {
	case errors.Is(err, tools.ErrNothingToUndo):
		out.Message = fmt.Sprintf("Run %s: nothing to undo (%s).", id, res.Message())
		return out, nil
	case errors.Is(err, tools.ErrRejected):
		out.Message = fmt.Sprintf("Undo of run %s not applied: %v", id, err)
		return out, nil
	case err != nil:
		return nil, fmt.Errorf("undo run %s: %w", id, err)
	}
	out.Undone = true
	out.Restored = append(out.Restored, res.Restored...)
	out.Deleted = append(out.Deleted, res.Deleted...)
	out.Message = fmt.Sprintf("Undid run %s: %s.", id, res.Message())
	rs.mu.Lock()
	rs.undone[id] = true
	rs.mu.Unlock()
	rs.s.log.Info("run undone", "run", id, "restored", len(res.Restored), "deleted", len(res.Deleted), "left", len(res.Left))
	return out, nil
}
