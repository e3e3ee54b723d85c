// Which lines of an editor each kind of pending-hunk decoration covers:
// the choice pending.ts draws, kept apart so that plain node tests it. No
// "vscode" import.
import { afterText, ShownHunk } from './pendingModel';

/** LineSpan is lines first..last of a buffer, both included. */
export interface LineSpan { first: number; last: number }

/** AfterLine is the read-only text shown at the end of a line: a hunk's new lines. */
export interface AfterLine { line: number; text: string; conflict: boolean }

/** HunkLines is what redraw sets on one editor, each list for its own decoration type. */
export interface HunkLines {
  /** removed: the lines a hunk that can be kept replaces. */
  removed: LineSpan[];
  /** conflicts: the lines of a conflicted hunk, framed and highlighted as
   * such instead of as removed; an insertion's line too, so a conflict is
   * never only the text after a line. */
  conflicts: LineSpan[];
  after: AfterLine[];
}

/**
 * hunkLines is computed afresh from the hunks of the model's last
 * payload on every redraw: nothing is carried over, so a hunk that a
 * newer catbuddy/pendingChanges no longer marks conflicted (the user
 * undid the typing) is drawn as removed again at once. lineCount bounds
 * the lines to the document's; several tells whether texts name their run.
 */
export function hunkLines(hunks: ShownHunk[], lineCount: number, several: boolean): HunkLines {
  const out: HunkLines = { removed: [], conflicts: [], after: [] };
  const top = Math.max(0, lineCount - 1);
  for (const h of hunks) {
    const conflict = !!h.hunk.conflict;
    const last = Math.min(h.last, lineCount) - 1;
    const at = Math.max(0, Math.min(h.last > h.first ? last : h.first, top));
    if (h.last > h.first) {
      (conflict ? out.conflicts : out.removed).push({ first: Math.min(h.first, top), last: Math.max(Math.min(h.first, top), last) });
    } else if (conflict) {
      out.conflicts.push({ first: at, last: at });
    }
    out.after.push({ line: at, text: afterText(h, several), conflict });
  }
  return out;
}
