// Next-edit suggestions (docs/completions.md#next-edit-suggestions): cb-ls
// sends the one edit it expects next as a pending pseudo-run whose runId
// starts with "nes-", drawn by the pending view like any run's hunk. What
// the extension adds is the key: Tab keeps the suggestion and Escape
// discards it while the cursor is on or next to it. The keybindings'
// `when` reads catbuddy.nextEditAtCursor, which nextEditNear decides, so
// that Tab is the editor's own everywhere else.
// Pure: no "vscode" import, the unit tests run it under plain node.
import { ShownHunk } from './pendingModel';

/** NEXT_EDIT_PREFIX starts the runId of every next-edit suggestion. */
export const NEXT_EDIT_PREFIX = 'nes-';

/** isNextEdit tells a next-edit suggestion's pseudo-run from an agent's run. */
export function isNextEdit(runId: string): boolean {
  return runId.startsWith(NEXT_EDIT_PREFIX);
}

/**
 * nextEditNear returns the next-edit hunk among hunks (a document's, as
 * PendingModel.hunks gives them) that the cursor's line is on or next to:
 * a line of the lines it replaces, or the line just above or below them.
 * An insertion (no lines replaced) sits at its line: that line and the
 * ones above and below it. A conflicted hunk is never one (a next edit
 * has none; a keep of it would be left pending).
 */
export function nextEditNear(hunks: readonly ShownHunk[], line: number): ShownHunk | undefined {
  return hunks.find((h) => {
    if (!isNextEdit(h.runId) || h.hunk.conflict) {
      return false;
    }
    const last = h.last > h.first ? h.last - 1 : h.first; // the last line it covers
    return line >= h.first - 1 && line <= last + 1;
  });
}
