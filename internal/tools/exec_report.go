package tools

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/snapshot"
)

// ExecChange is one workspace file a command created, changed or deleted.
type ExecChange = snapshot.Change

// ExecChanges reports what one command changed in the workspace.
type ExecChanges struct {
	Command string
	Files   []ExecChange
}

// ExecChangeListener receives the changes of a command that could write
// the workspace (the editor refreshes buffers; an undo ledger records).
type ExecChangeListener func(ctx context.Context, c ExecChanges)

// scanRoots are the workspace folders, plus the internal workspace when
// the work root lies in .catbuddy/ (walks never enter .catbuddy/).
func (tc *ToolContext) scanRoots() []guard.Path {
	var out []guard.Path
	for _, r := range tc.Guard.Roots() {
		out = append(out, guard.Path{Abs: r, Root: r, Rel: "."})
	}
	if wr := tc.WorkRoot(); wr != "" && strings.Contains(filepath.ToSlash(wr), "/"+guard.StateDir+"/") {
		if p, err := tc.Resolve("."); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// reportChanges scans the workspace again after a command that could
// write it, records in the FileStates that the command changed what it
// changed (so the model reads those files again, and an edit names the
// command) and drops those of what it deleted, records the run's undo, tells the listener and
// renders the report.
func (tc *ToolContext) reportChanges(ctx context.Context, command string, before snapshot.Scan) (string, []ExecChange) {
	after, ignored := snapshot.TakeAfter(ctx, tc.scanRoots(), before.Taken())
	changes := snapshot.Diff(before, after, tc.relForReport)
	states := tc.FileStates(ctx)
	ledger := filestate.LedgerFromContext(ctx)
	files := make([]ExecChange, len(changes))
	for i, c := range changes {
		files[i] = c.Change
		if c.Kind == "deleted" {
			states.Drop(c.Path)
		} else {
			states.RecordCommandChange(c.Path, command)
		}
		if ledger != nil {
			snapshot.RecordUndo(ledger, c)
		}
	}
	// An ignored output the model read (dist/app.js) is read again too.
	for _, p := range ignored.Paths {
		states.RecordCommandChange(p, command)
	}
	if len(files) > 0 && tc.OnExecChanges != nil {
		tc.OnExecChanges(ctx, ExecChanges{Command: command, Files: files})
	}
	return snapshot.Render(files, ignored), files
}

// relForReport renders an absolute workspace path relative to its
// folder (the work root first).
func (tc *ToolContext) relForReport(abs string) string {
	roots := append([]string{tc.WorkRoot()}, tc.Guard.Roots()...)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
