package fake

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/lsp"
)

// declarePending adds capabilities.experimental.catbuddy.pendingChanges
// to caps, keeping whatever else the experimental object holds.
func declarePending(caps *protocol.ClientCapabilities) {
	exp := map[string]map[string]any{}
	if len(caps.Experimental) > 0 {
		_ = json.Unmarshal(caps.Experimental, &exp)
	}
	if exp["catbuddy"] == nil {
		exp["catbuddy"] = map[string]any{}
	}
	exp["catbuddy"]["pendingChanges"] = true
	raw, _ := json.Marshal(exp)
	caps.Experimental = protocol.LSPAny(raw)
}

// PendingNotes returns every catbuddy/pendingChanges notification
// received so far, in order.
func (e *Editor) PendingNotes() []lsp.PendingChangesParams {
	var out []lsp.PendingChangesParams
	for _, raw := range e.Notifications(lsp.MethodPendingChanges) {
		var p lsp.PendingChangesParams
		if err := json.Unmarshal(raw, &p); err != nil {
			e.t.Errorf("fake editor: malformed %s: %v\n%s", lsp.MethodPendingChanges, err, raw)
			continue
		}
		out = append(out, p)
	}
	return out
}

// Pending returns the last catbuddy/pendingChanges of run id: what the
// editor would show now. ok is false before the first.
func (e *Editor) Pending(id string) (files []lsp.PendingFile, ok bool) {
	notes := e.PendingNotes()
	for i := len(notes) - 1; i >= 0; i-- {
		if notes[i].RunID == id {
			return notes[i].Files, true
		}
	}
	return nil, false
}

// AwaitPending waits until the last notification of run id satisfies
// cond, and returns its files.
func (e *Editor) AwaitPending(id, what string, cond func([]lsp.PendingFile) bool) []lsp.PendingFile {
	e.t.Helper()
	var files []lsp.PendingFile
	e.Await(what, func() bool {
		var ok bool
		files, ok = e.Pending(id)
		return ok && cond(files)
	})
	return files
}

// Keep runs catbuddy.keep for run id: every pending change when files
// and hunks are both empty.
func (e *Editor) Keep(id string, files []uri.URI, hunks []string) (lsp.KeepResult, error) {
	var res lsp.KeepResult
	err := e.ExecuteCommand(lsp.CmdKeep, []any{selection(id, files, hunks)}, &res)
	return res, err
}

// KeepResolving runs catbuddy.keep for run id with conflicts, the
// resolution of the chosen hunks that conflict with the buffer's text
// ("both", "theirs", "run", "markers").
func (e *Editor) KeepResolving(id string, files []uri.URI, hunks []string, conflicts string) (lsp.KeepResult, error) {
	var res lsp.KeepResult
	arg := selection(id, files, hunks)
	arg["conflicts"] = conflicts
	err := e.ExecuteCommand(lsp.CmdKeep, []any{arg}, &res)
	return res, err
}

// Discard runs catbuddy.discard for run id.
func (e *Editor) Discard(id string, files []uri.URI, hunks []string) (lsp.DiscardResult, error) {
	var res lsp.DiscardResult
	err := e.ExecuteCommand(lsp.CmdDiscard, []any{selection(id, files, hunks)}, &res)
	return res, err
}

func selection(id string, files []uri.URI, hunks []string) map[string]any {
	arg := map[string]any{"runId": id}
	if len(files) > 0 {
		arg["files"] = files
	}
	if len(hunks) > 0 {
		arg["hunks"] = hunks
	}
	return arg
}

// HunkIDs lists the ids of every hunk of files, in order.
func HunkIDs(files []lsp.PendingFile) []string {
	var out []string
	for _, f := range files {
		for _, h := range f.Hunks {
			out = append(out, h.ID)
		}
	}
	return out
}

// FileOf returns the pending file at path (relative, as notified).
func FileOf(files []lsp.PendingFile, path string) (lsp.PendingFile, error) {
	for _, f := range files {
		if f.Path == path {
			return f, nil
		}
	}
	return lsp.PendingFile{}, fmt.Errorf("no pending file %s among %d", path, len(files))
}
