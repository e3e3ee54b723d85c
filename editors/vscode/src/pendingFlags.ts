// What the review shows of a pending file's flags before the user keeps
// it: that it runs later without anyone typing a build command (direnv's
// .envrc, a CI workflow, .vscode/tasks.json), that keep will not write it
// (under .git/, a FIFO), and that it is one whole-file item (binary, big,
// a link) whose label says what it is, with no lines to diff. The server
// sends these in catbuddy/pendingChanges; this module only words them, so
// that the Pending Changes view, the CodeLens and the tests agree. No
// "vscode" import: the unit tests run it under plain node.
import type { PendingFile } from './pendingModel';

/** wholeLabel is a whole-file item's label ("big.bin: 2.0 GB, whole file"), or undefined. */
export function wholeLabel(f: PendingFile): string | undefined {
  if (!f.whole) {
    return undefined;
  }
  return f.hunks?.[0]?.label || `${f.path}: whole file`;
}

/** notKept is the refusal as the user reads it; the server's reason
 * already says "not kept: …" and is not said twice. */
export function notKept(reason: string): string {
  return /^not kept\b/i.test(reason) ? reason : `not kept: ${reason}`;
}

/** flagNotes are the file's notes, most important first: "not kept: …", "runs later: …". */
export function flagNotes(f: PendingFile): string[] {
  const out: string[] = [];
  if (f.keepRefused) {
    out.push(notKept(f.keepRefused));
  }
  if (f.runsLater) {
    out.push(`runs later: ${f.runsLater}`);
  }
  return out;
}

/** flagged tells whether a file's row needs a warning marker. */
export function flagged(f: PendingFile): boolean {
  return !!(f.keepRefused || f.runsLater);
}

/** fileDescription is a file row's description: what changed, then its notes. */
export function fileDescription(f: PendingFile, added: number, removed: number): string {
  const what = f.group ? `${f.kind}, ${f.group.count} files` : f.whole ? (wholeLabel(f) ?? '') : `+${added} −${removed}`;
  return [what, ...flagNotes(f)].join(' · ');
}

/** fileTooltip is a file row's tooltip: its path and kind, its label, and every note in full. */
export function fileTooltip(f: PendingFile): string {
  const out = [`${f.path} (${f.kind})`];
  const w = wholeLabel(f);
  if (w) {
    out.push(w);
  }
  if (f.runsLater) {
    out.push(`⚠ runs later: ${f.runsLater} — review it before you keep it`);
  }
  if (f.keepRefused) {
    out.push(`Will not be kept — ${notKept(f.keepRefused)} (Undo discards it)`);
  }
  return out.join('\n');
}

/** fileContext is a file row's contextValue: package.json offers Keep
 * only on catbuddyPendingFile and catbuddyPendingWhole, Undo on all four. */
export function fileContext(f: PendingFile): string {
  return `catbuddyPending${f.whole ? 'Whole' : 'File'}${f.keepRefused ? 'Refused' : ''}`;
}

/** hunkContext is a hunk row's contextValue: a refused file's hunks get no Keep either. */
export function hunkContext(f: PendingFile | undefined): string {
  return f?.keepRefused ? 'catbuddyPendingHunkRefused' : 'catbuddyPendingHunk';
}

/** keepTitle is the Keep lens of a file's change: what keep will do, or that it will not. */
export function keepTitle(f: PendingFile, tag = ''): string {
  if (f.keepRefused) {
    return `Will not be kept — ${notKept(f.keepRefused)}`;
  }
  const keep = f.whole ? 'Keep whole file' : 'Keep';
  return f.runsLater ? `⚠ ${keep}${tag} (runs later: ${f.runsLater})` : `${keep}${tag}`;
}
