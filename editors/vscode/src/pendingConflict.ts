// The ways out of a conflicted pending hunk. A hunk is in conflict when the
// user's text changed the lines it touches since the run made it; a plain
// Keep then leaves it pending, so the editor offers, instead of Keep, the
// four resolutions catbuddy.keep takes in its `conflicts` field: both
// (the user's lines, then the run's), theirs (the user's text stays, the
// hunk leaves the set), run (the run's lines replace the region) and
// markers (git's conflict markers written into the buffer). The server
// does the merge; this module only names the choices, builds the request
// and words the answer, so that the CodeLens, the hover, the Pending
// Changes view and the tests agree. No "vscode" import: the unit tests run
// it under plain node.
import { lines, type PendingFile, type PendingHunk, type ShownHunk } from './pendingModel';
import { fileDescription, fileTooltip, flagged, hunkContext, keepTitle, notKept } from './pendingFlags';

/** ConflictChoice is catbuddy.keep's `conflicts` value. */
export type ConflictChoice = 'both' | 'theirs' | 'run' | 'markers';

/** ConflictAction is one way out: its title, what it sends, and its commands. */
export interface ConflictAction {
  choice: ConflictChoice;
  title: string;
  /** command acts on a hunk argument, else on the conflicted hunk under the cursor. */
  command: string;
  /** viewCommand is the Pending Changes view's, given the row. */
  viewCommand: string;
}

/** CONFLICT_ACTIONS in the order they are offered. */
export const CONFLICT_ACTIONS: readonly ConflictAction[] = [
  { choice: 'both', title: 'Keep Both', command: 'catbuddy.keepBoth', viewCommand: 'catbuddy.pendingView.keepBoth' },
  { choice: 'theirs', title: 'Keep Yours', command: 'catbuddy.keepYours', viewCommand: 'catbuddy.pendingView.keepYours' },
  { choice: 'run', title: "Take the Run's", command: 'catbuddy.takeRun', viewCommand: 'catbuddy.pendingView.takeRun' },
  { choice: 'markers', title: 'Conflict Markers', command: 'catbuddy.conflictMarkers', viewCommand: 'catbuddy.pendingView.conflictMarkers' },
];

/** HunkArg names one hunk of a run in a document (a lens's or the hover's argument). */
export interface HunkArg { uri: string; runId: string; hunk: string }

/** LensSpec is one CodeLens: a title, and the command it runs (none: a label). */
export interface LensSpec { title: string; command: string; arguments?: unknown[] }

/**
 * hunkLenses are the CodeLenses over one hunk. A hunk that can be kept gets
 * Keep and Undo; a conflicted one, whose plain Keep would do nothing, the
 * four resolutions and Undo; a hunk of a file keep refuses, a label saying
 * so and Undo (no resolution writes it either). tag names the run when
 * several are pending.
 */
export function hunkLenses(h: Pick<ShownHunk, 'hunk'> & { file?: PendingFile }, arg: HunkArg, tag = ''): LensSpec[] {
  const undo: LensSpec = { title: 'Undo', command: 'catbuddy.undoHunk', arguments: [arg] };
  const f = h.file;
  if (f?.keepRefused) {
    return [{ title: keepTitle(f), command: '' }, undo];
  }
  if (h.hunk.conflict) {
    return [
      ...CONFLICT_ACTIONS.map((a, i) => ({ title: i === 0 ? `${a.title}${tag}` : a.title, command: a.command, arguments: [arg] })),
      undo,
    ];
  }
  return [{ title: f ? keepTitle(f, tag) : `Keep${tag}`, command: 'catbuddy.keepHunk', arguments: [arg] }, undo];
}

/** hoverLinks are the hover's command links for a hunk: the same choices as its lenses. */
export function hoverLinks(h: Pick<ShownHunk, 'hunk'> & { file?: PendingFile }, arg: HunkArg): string {
  const a = encodeURIComponent(JSON.stringify([arg]));
  return hunkLenses(h, arg)
    .filter((l) => l.command !== '')
    .map((l) => `[${l.title}](command:${l.command}?${a})`)
    .join(' · ');
}

/** hoverCommands are the commands the hover's links may run. */
export const hoverCommands = ['catbuddy.keepHunk', 'catbuddy.undoHunk', ...CONFLICT_ACTIONS.map((a) => a.command)];

/** ResolveRequest is catbuddy.keep's argument for one conflicted hunk. */
export interface ResolveRequest { runId: string; hunks: string[]; conflicts: ConflictChoice }

/** resolveRequest resolves hunk of runId as choice. */
export function resolveRequest(runId: string, hunk: string, choice: ConflictChoice): ResolveRequest {
  return { runId, hunks: [hunk], conflicts: choice };
}

/** KeepResult is catbuddy.keep's answer. */
export interface KeepResult {
  kept?: string[];
  left?: { hunk: string; reason: string }[];
  resolved?: { hunk: string; as: string }[];
}

/** resolvedText says what a resolution did to the buffer, by what the server says it did. */
export function resolvedText(as: string): string {
  switch (as) {
    case 'both':
      return 'Kept both: your lines, then the run\'s.';
    case 'theirs':
      return 'Kept your text; the run\'s change left the pending set.';
    case 'run':
      return 'Took the run\'s lines in place of yours.';
    case 'markers':
      return 'Wrote conflict markers into the file: edit them into what you want, then save.';
    default:
      return `Resolved as "${as}".`;
  }
}

/** ResolveOutcome is what the user is told of a resolution. */
export interface ResolveOutcome { level: 'info' | 'warning' | 'error'; text: string }

/**
 * resolveOutcome words catbuddy.keep's answer to a resolution of hunk as
 * choice, from what the server answered, not from what was asked: resolved
 * (and how, when the server chose otherwise than asked), kept as it was
 * (its conflict was gone by then), or left pending with the server's
 * reason; an answer that names the hunk nowhere says so.
 */
export function resolveOutcome(hunk: string, choice: ConflictChoice, res: KeepResult | undefined): ResolveOutcome {
  const r = res?.resolved?.find((x) => x.hunk === hunk);
  if (r) {
    const other = r.as !== choice ? ` (asked: ${titleOf(choice)})` : '';
    return { level: r.as !== choice ? 'warning' : 'info', text: resolvedText(r.as) + other };
  }
  if (res?.kept?.includes(hunk)) {
    return { level: 'info', text: 'Kept the run\'s change: it was no longer in conflict.' };
  }
  const l = res?.left?.find((x) => x.hunk === hunk);
  if (l) {
    return { level: 'warning', text: `Nothing resolved; the change is still pending: ${l.reason}` };
  }
  return { level: 'error', text: `Nothing resolved: the server's answer does not name the change (${JSON.stringify(res ?? null)}).` };
}

/** titleOf is a choice's title ("Keep Both"). */
export function titleOf(choice: ConflictChoice): string {
  return CONFLICT_ACTIONS.find((a) => a.choice === choice)?.title ?? choice;
}

/** notConflicted is what a resolution of a hunk that is not in conflict says, sending nothing:
 * Keep Yours of such a hunk would otherwise keep the run's change. */
export function notConflicted(): string {
  return 'The pending change under the cursor is not in conflict: nothing was done. Keep or Undo it.';
}

/** keepLeftText is the warning of a plain keep that left hunks pending;
 * a conflicted one is told its ways out. */
export function keepLeftText(res: KeepResult, conflicted: boolean): string {
  const left = res.left ?? [];
  const hint = conflicted ? ' — resolve a conflict with Keep Both, Keep Yours, Take the Run\'s or Conflict Markers' : '';
  return `Kept ${res.kept?.length ?? 0} hunk(s); left pending: ${left.map((l) => l.reason).join('; ')}${hint}`;
}

/** fileConflicts counts a file's conflicted hunks. */
export function fileConflicts(f: PendingFile): number {
  return (f.hunks ?? []).filter((h) => !!h.conflict).length;
}

/** conflictNote is what a file row's description adds for its conflicted hunks: "conflict", "2 conflicts". */
export function conflictNote(n: number): string {
  return n === 1 ? 'conflict' : `${n} conflicts`;
}

/** CONFLICT_HUNK is the contextValue of a conflicted hunk's row:
 * package.json offers the four resolutions and Undo on it, not Keep. */
export const CONFLICT_HUNK = 'catbuddyPendingHunkConflict';

/** HunkRow is what the Pending Changes view shows of a hunk's row, but its icon. */
export interface HunkRow { description: string; tooltip?: string; contextValue: string; conflict: boolean }

/** hunkRow words a hunk's row under its file: a conflicted hunk says
 * "conflict" first and offers the resolutions instead of Keep (a refused
 * file's hunk neither: no resolution writes it). */
export function hunkRow(h: PendingHunk | undefined, file: PendingFile | undefined): HunkRow {
  const added = lines(h?.newText ?? '');
  const removed = lines(h?.oldText ?? '');
  const conflict = !!h?.conflict;
  return {
    description: `${conflict ? 'conflict · ' : ''}+${added.length} −${removed.length}${added[0] ? '  ' + added[0].trim() : ''}`,
    tooltip: conflict
      ? `Conflict: ${h?.conflict}\nRight-click: ${CONFLICT_ACTIONS.map((a) => a.title).join(', ')}`
      : file?.keepRefused ? `${h?.label ?? ''}\nWill not be kept — ${notKept(file.keepRefused)}` : h?.label,
    contextValue: conflict && !file?.keepRefused ? CONFLICT_HUNK : hunkContext(file),
    conflict,
  };
}

/** FileRow is what a file's row adds for its conflicted hunks. */
export interface FileRow { description: string; tooltip: string; warn: boolean }

/** fileRow words a file's row: its flags (pendingFlags.ts), then its conflicts. */
export function fileRow(f: PendingFile, added: number, removed: number): FileRow {
  const n = fileConflicts(f);
  const note = n > 0 ? [conflictNote(n)] : [];
  return {
    description: [fileDescription(f, added, removed), ...note].join(' · '),
    tooltip: fileTooltip(f) + (n > 0 ? `\n⚠ ${conflictNote(n)} with your text: resolve each hunk (${CONFLICT_ACTIONS.map((a) => a.title).join(', ')})` : ''),
    warn: flagged(f) || n > 0,
  };
}
