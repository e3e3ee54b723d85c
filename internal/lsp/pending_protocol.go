package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// A run's edits and the files its commands write do not reach the
// user's buffers or disk while it works: they are pending in the run's
// change set (internal/changeset) until the user keeps or discards them.
// This file is the wire form of that, as docs/PROTOCOL.md describes it;
// pending_notify.go sends it, pending_commands.go answers the commands.

// MethodPendingChanges is the notification of a run's pending changes,
// sent to a client that declared capabilities.experimental.catbuddy.
// pendingChanges: each time the run's set changes, after each keep or
// discard, and for every set found at start.
const MethodPendingChanges = "catbuddy/pendingChanges"

// Commands of the pending changes, as announced in the initialize result.
const (
	CmdKeep           = "catbuddy.keep"
	CmdDiscard        = "catbuddy.discard"
	CmdPendingChanges = "catbuddy.pendingChanges"
)

// PendingChangesParams is the payload of catbuddy/pendingChanges: every
// file of one run that still has pending changes (an empty list once the
// last was kept or discarded).
type PendingChangesParams struct {
	RunID string        `json:"runId"`
	Files []PendingFile `json:"files"`
}

// PendingFile is one file of a run's change set. A file has Hunks, or
// a Group when it stands for many ignored outputs (node_modules/) kept
// or discarded as a whole.
type PendingFile struct {
	URI  uri.URI `json:"uri"`
	Path string  `json:"path"` // relative to its workspace folder, for display
	Kind string  `json:"kind"` // created, changed, deleted
	// Hunks are the changes, each with a range in the buffer (or the file
	// on disk) as it is now.
	Hunks []PendingHunk `json:"hunks,omitempty"`
	Group *PendingGroup `json:"group,omitempty"`
	// Whole is set for a file kept or discarded as one item, never
	// diffed (binary, big, a link, a FIFO): its one hunk's label
	// describes it and its texts are empty.
	Whole bool `json:"whole,omitempty"`
	// RunsLater says why the file runs later outside any sandbox;
	// KeepRefused why keeping it is refused (it can be discarded).
	RunsLater   string `json:"runsLater,omitempty"`
	KeepRefused string `json:"keepRefused,omitempty"`
}

// PendingHunk is one hunk: OldText at Range becomes NewText when kept.
type PendingHunk struct {
	ID      string         `json:"id"`
	Range   protocol.Range `json:"range"`
	OldText string         `json:"oldText"`
	NewText string         `json:"newText"`
	Label   string         `json:"label"`
	// Conflict, when set, says why the hunk cannot be kept as it is: the
	// user's text touches its lines. Keeping it leaves it pending unless
	// catbuddy.keep's conflicts resolves it. Range is then the
	// conflicting region in the buffer (the user's lines there), and
	// NewText still the run's text of the hunk.
	Conflict string `json:"conflict,omitempty"`
}

// PendingGroup stands for Count files under one directory; ID names it
// in catbuddy.keep and catbuddy.discard as a hunk's id does.
type PendingGroup struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

// selectionArgs is the argument of catbuddy.keep and catbuddy.discard:
// the run, and which of its changes (every one when both are empty).
// Conflicts, for catbuddy.keep only, resolves the chosen hunks that
// conflict with the user's text: "both", "theirs", "run" or "markers"
// (changeset.Resolution); absent, they stay pending.
type selectionArgs struct {
	RunID     string    `json:"runId"`
	Files     []uri.URI `json:"files"`
	Hunks     []string  `json:"hunks"`
	Conflicts string    `json:"conflicts,omitempty"`
}

// KeepResult is catbuddy.keep's answer: the hunks that landed, those
// still pending with the reason (a conflict with the user's typing, a
// file deleted meanwhile), and the conflicted hunks resolved (those are
// in Kept too).
type KeepResult struct {
	Kept     []string       `json:"kept"`
	Left     []LeftHunk     `json:"left"`
	Resolved []ResolvedHunk `json:"resolved"`
}

// ResolvedHunk is a conflicted hunk a keep resolved, and as what:
// "both", "theirs", "run" or "markers".
type ResolvedHunk struct {
	Hunk string `json:"hunk"`
	As   string `json:"as"`
}

// LeftHunk is a hunk that was chosen but not kept.
type LeftHunk struct {
	Hunk   string `json:"hunk"`
	Reason string `json:"reason"`
}

// DiscardResult is catbuddy.discard's answer.
type DiscardResult struct {
	Discarded []string `json:"discarded"`
}

// PendingRun is one run of catbuddy.pendingChanges' answer.
type PendingRun struct {
	RunID string        `json:"runId"`
	Title string        `json:"title"`
	Files []PendingFile `json:"files"`
}

// PendingList is catbuddy.pendingChanges' answer.
type PendingList struct {
	Runs []PendingRun `json:"runs"`
}
