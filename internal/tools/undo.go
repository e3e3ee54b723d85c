package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

// UndoResult says what an undo of a run did, file by file (paths
// relative to their root).
type UndoResult struct {
	Restored []string // put back as before the run
	Deleted  []string // created by the run, removed
	// Left are the files the undo did not touch, each with the reason.
	Left []UndoLeft
}

// UndoLeft is a file an undo left alone.
type UndoLeft struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Message is the one-line account for the user.
func (r UndoResult) Message() string {
	var parts []string
	if len(r.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(r.Restored, ", "))
	}
	if len(r.Deleted) > 0 {
		parts = append(parts, "deleted "+strings.Join(r.Deleted, ", "))
	}
	for _, l := range r.Left {
		parts = append(parts, fmt.Sprintf("left %s alone: %s", l.File, l.Reason))
	}
	if len(parts) == 0 {
		return "nothing to undo"
	}
	return strings.Join(parts, "; ")
}

// ErrNothingToUndo is returned by UndoRun when no file needs a change.
var ErrNothingToUndo = errors.New("nothing to undo")

// UndoRun puts back every file of a run's ledger as it was before the
// run, as ONE change through the Workspace (one review in the editor,
// pinned to the buffers' current versions; all or nothing on disk):
//
//   - a file the run edited gets its old content back; where the user
//     changed it since the run, only the run's changes are reverted if
//     they and the user's do not touch (a three-way merge on lines),
//     and otherwise the file is left alone and named;
//   - a file the run created is deleted (DeleteFile), unless the user
//     changed it since;
//   - a file a write command changed is restored from the content kept
//     before the command ran; one whose content was not kept is named.
func (tc *ToolContext) UndoRun(ctx context.Context, entries []filestate.LedgerEntry) (UndoResult, error) {
	var (
		res UndoResult
		cs  []Change
	)
	leave := func(rel, why string) { res.Left = append(res.Left, UndoLeft{File: rel, Reason: why}) }
	for _, e := range entries {
		p, err := tc.Resolve(e.Path)
		if err != nil {
			leave(e.Path, err.Error())
			continue
		}
		if e.Unrestorable {
			why := e.Why
			if why == "" {
				why = "a command changed it and its content before the run was not kept"
			}
			leave(p.Rel, why)
			continue
		}
		cur, err := tc.Workspace.Read(ctx, p)
		missing := errors.Is(err, ErrNotExist)
		if err != nil && !missing {
			leave(p.Rel, err.Error())
			continue
		}
		label := "undo " + p.Rel
		switch {
		case !e.Existed && missing:
			// Created by the run and gone already.
		case !e.Existed:
			if e.Known && !bytes.Equal(cur.Content, e.Result) {
				leave(p.Rel, "the run created it and it was changed since; delete it yourself if you want it gone")
				continue
			}
			cs = append(cs, Change{Path: p, Base: cur, Delete: true, Label: label})
			res.Deleted = append(res.Deleted, p.Rel)
		case missing:
			if e.Known && !e.Deleted {
				leave(p.Rel, "it was deleted after the run")
				continue
			}
			cs = append(cs, Change{Path: p, Create: true, Edits: []TextEdit{{NewText: string(e.Prior)}}, After: e.Prior, Label: label})
			res.Restored = append(res.Restored, p.Rel)
		case bytes.Equal(cur.Content, e.Prior):
			// Already as before the run.
		case !e.Known || bytes.Equal(cur.Content, e.Result):
			cs = append(cs, Change{Path: p, Base: cur, Edits: diff.LineEdits(cur.Content, e.Prior), After: e.Prior, Label: label})
			res.Restored = append(res.Restored, p.Rel)
		default:
			merged, ok := diff.Merge3(e.Result, cur.Content, e.Prior)
			if !ok {
				leave(p.Rel, "it was changed after the run where the run changed it too; undo the run's changes there by hand")
				continue
			}
			cs = append(cs, Change{Path: p, Base: cur, Edits: diff.LineEdits(cur.Content, merged), After: merged, Label: label})
			res.Restored = append(res.Restored, p.Rel+" (the run's changes only; later changes kept)")
		}
	}
	if len(cs) == 0 {
		return res, ErrNothingToUndo
	}
	docs, err := ApplyAll(ctx, tc.Workspace, cs)
	if err != nil {
		return res, err
	}
	// Files whose undo the user rejected in the review are left as they are.
	var kept []string
	for i, d := range docs {
		if len(d.Rejected) > 0 && !cs[i].Delete {
			kept = append(kept, cs[i].Path.Rel)
			leave(cs[i].Path.Rel, fmt.Sprintf("%d of %d hunks of the undo were rejected in the review", len(d.Rejected), max(1, len(cs[i].Edits))))
		}
	}
	res.Restored = dropNamed(res.Restored, kept)
	return res, nil
}

// dropNamed removes from list the entries naming one of files.
func dropNamed(list, files []string) []string {
	out := list[:0]
	for _, s := range list {
		name, _, _ := strings.Cut(s, " (")
		if !slices.Contains(files, name) {
			out = append(out, s)
		}
	}
	return out
}
