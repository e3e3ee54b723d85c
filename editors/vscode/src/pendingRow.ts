// What a Pending Changes view row's inline buttons ask of the server. The
// view's rows pass themselves to these commands; VS Code hands the command
// the row only while the view's model still knows it, and a refresh of the
// view (a run's new edit, a keep elsewhere) forgets every row until VS Code
// asks for them again. A click in that moment arrives without its row: the
// palette's commands would then act on the active editor's file, which is
// not what the user clicked, so the view has commands of its own that do
// nothing and say so.

import { ConflictChoice, resolveRequest, ResolveRequest } from './pendingConflict';

/** PendingNode is a row: a run, one of its files, or one of that file's hunks. */
export type PendingNode =
  | { type: 'run'; runId: string }
  | { type: 'file'; runId: string; uri: string; files: string[] }
  | { type: 'hunk'; runId: string; uri: string; hunk: string };

/** RowRequest is a catbuddy.keep or catbuddy.discard of what a row stands for. */
export interface RowRequest {
  command: 'catbuddy.keep' | 'catbuddy.discard';
  arg: { runId: string; files?: string[]; hunks?: string[] };
}

/** lostRow is what the user is told when a click arrived without its row; done is what did not happen. */
export function lostRow(done = 'kept or undone'): string {
  return `Nothing was ${done}: the Pending Changes view was updating as you clicked. Click again.`;
}

/** rowRequest is what keeping (or undoing) a row asks; undefined without a row. */
export function rowRequest(action: 'keep' | 'undo', node: PendingNode | undefined): RowRequest | undefined {
  if (!node || typeof node !== 'object' || typeof node.runId !== 'string') {
    return undefined;
  }
  const command = action === 'keep' ? 'catbuddy.keep' : 'catbuddy.discard';
  switch (node.type) {
    case 'run':
      return { command, arg: { runId: node.runId } };
    case 'file':
      return { command, arg: { runId: node.runId, files: node.files } };
    case 'hunk':
      return { command, arg: { runId: node.runId, hunks: [node.hunk] } };
    default:
      return undefined;
  }
}

/** rowResolve is what resolving a hunk row's conflict as choice asks; undefined without a hunk row. */
export function rowResolve(choice: ConflictChoice, node: PendingNode | undefined): ResolveRequest | undefined {
  if (!node || typeof node !== 'object' || node.type !== 'hunk' || typeof node.runId !== 'string' || typeof node.hunk !== 'string') {
    return undefined;
  }
  return resolveRequest(node.runId, node.hunk, choice);
}
