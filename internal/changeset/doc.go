// Package changeset keeps each run's pending changes: what the agent
// wrote, and what its commands created, changed or deleted, held apart
// from the user's files until the user keeps or discards it, hunk by
// hunk. The agent never waits for the user, and nothing reaches the
// user's files without the user's say.
//
// # The concepts, one per file
//
//   - A Store (store.go) holds every run's Set of the workspace
//     folders; Open finds the sets earlier processes left, so a set
//     survives a crash (kill -9) or a restart. Sets live in the user's
//     state directory, never in the project (package userstate): a
//     cloned project cannot plant one, and one found where older
//     versions kept them is never read (legacy.go).
//
//   - A Set (set.go) is one run's change set. Its storage (storage.go)
//     is <state>/folders/<folder>-<hash>/runs/<runId>/ for each folder it
//     touched, read and written through its opened directory:
//     upper/ and work/, the run's copy-on-write layer of the folder
//     (sandbox.OverlayLayer; upper/ IS the pending content: whole files,
//     and whiteouts for deletions), base/ (the user's text of each file
//     when the run first touched it) and manifest.json (title, time,
//     the files and what became of their hunks).
//
//   - A File's Hunks (hunks.go) are the line diff of its base and its
//     pending content (diff.LineEdits). A hunk's ID is made of its file
//     and its text, so it stays the same when the set is computed again
//     after another edit; keep and discard name hunks by it. Ignored
//     outputs of commands (node_modules/, build directories, per
//     .gitignore) are one Group each, kept or discarded as a whole
//     (groups.go).
//
//   - The run's view (view.go): Set.Workspace(under) is a
//     tools.Workspace whose reads see the pending content and whose
//     writes land in the layer at once, with the same checks as any
//     Workspace (the base must match). The user's buffers and disk see
//     none of it.
//
//   - exec over the layer (layer.go): the set implements tools.Layer;
//     a command that writes runs over the layer without a question,
//     with the editor's unsaved buffers materialised first, and what it
//     changed joins the set (sandbox.ScanUpper).
//
//   - Keep (keep.go) merges the chosen hunks three-way over the user's
//     current text (diff.RebaseEdits) and applies them as ONE
//     tools.ApplyAll through the front end's Workspace; a hunk the
//     user's typing touches stays pending with the reason, unless
//     Selection.Conflicts resolves it (resolve.go: both, theirs, run or
//     conflict markers, over diff.ConflictRegion). The base
//     then moves on, so a second run's set merges over what the first
//     one kept. Discard (discard.go) reverts the chosen hunks in the
//     layer. Both leave news for the agent (TakeNews).
//
//   - Reads of either side of a change (side.go) follow no link, open
//     no device or FIFO and are bounded; binary, big and special files
//     are whole-file items (keep_whole.go). A keep, a discard and a
//     command over the layer are one at a time across processes too
//     (oplock.go).
//
// Never a half-applied state: a keep is one ApplyAll (all or nothing
// on disk, one workspace/applyEdit in the editor), and the set's own
// files are written before the layer so that a crash between two steps
// leaves a set that Open reads back whole.
package changeset
