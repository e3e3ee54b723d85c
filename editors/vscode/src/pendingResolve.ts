// The commands that resolve a conflicted pending hunk (pendingConflict.ts
// names them): on a CodeLens or the hover they get the hunk, from the
// palette they take the conflicted hunk under the cursor, in the Pending
// Changes view their row. Each sends one catbuddy.keep with `conflicts`
// and tells the user what the server did; the new catbuddy/pendingChanges
// that follows redraws the buffer.
import * as vscode from 'vscode';
import { CONFLICT_ACTIONS, ConflictChoice, HunkArg, KeepResult, notConflicted, resolveOutcome, ResolveRequest, resolveRequest } from './pendingConflict';
import type { PendingModel } from './pendingModel';
import { PendingNode, rowResolve } from './pendingRow';

type Executor = <T>(command: string, arg?: unknown) => Promise<T>;

/**
 * registerResolutions registers each resolution's two commands. cursorArg
 * names the hunk under the cursor; lost tells the user a view row's click
 * came without its row.
 */
export function registerResolutions(
  execute: Executor,
  model: PendingModel,
  cursorArg: () => HunkArg | undefined,
  lost: (choice: string, n: unknown) => void,
  log?: vscode.LogOutputChannel,
): vscode.Disposable {
  async function send(req: ResolveRequest): Promise<void> {
    try {
      const res = await execute<KeepResult>('catbuddy.keep', req);
      log?.info(`pending: resolve ${req.hunks[0]} of ${req.runId} as ${req.conflicts}: ${JSON.stringify(res)}`);
      const o = resolveOutcome(req.hunks[0], req.conflicts, res);
      const show = o.level === 'info' ? vscode.window.showInformationMessage : o.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      void show(o.text);
    } catch (e) {
      void vscode.window.showErrorMessage(`catbuddy.keep (conflicts: ${req.conflicts}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // A hunk the editor knows is not in conflict is left alone: Keep Yours
  // of it would keep the run's change instead (the server keeps a hunk
  // that is not in conflict as a plain keep).
  async function resolve(choice: ConflictChoice, a?: HunkArg): Promise<void> {
    const arg = a ?? cursorArg();
    if (!arg) {
      void vscode.window.showInformationMessage('No pending change under the cursor.');
      return;
    }
    const known = model.run(arg.runId)?.files.flatMap((f) => f.hunks ?? []).find((h) => h.id === arg.hunk);
    if (known && !known.conflict) {
      void vscode.window.showInformationMessage(notConflicted());
      return;
    }
    await send(resolveRequest(arg.runId, arg.hunk, choice));
  }

  async function resolveRow(choice: ConflictChoice, n?: PendingNode): Promise<void> {
    const req = rowResolve(choice, n);
    if (!req) {
      lost(choice, n);
      return;
    }
    await send(req);
  }

  return vscode.Disposable.from(...CONFLICT_ACTIONS.flatMap((a) => [
    vscode.commands.registerCommand(a.command, (h?: HunkArg) => resolve(a.choice, h)),
    vscode.commands.registerCommand(a.viewCommand, (n?: PendingNode) => resolveRow(a.choice, n)),
  ]));
}
