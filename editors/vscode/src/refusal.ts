// How the extension reports a server command that failed. A run refused
// because its document (or the run) is busy is expected, not a fault: the
// server answers it with LSP's RequestFailed (-32803), and the extension
// says it as a warning, in the log too. Anything else is an error.

import type * as vscode from 'vscode';

/** REQUEST_FAILED is LSP's RequestFailed: the server refused a valid request in its present state. */
export const REQUEST_FAILED = -32803;

/** isRefusal says whether e is the server's RequestFailed answer (a busy document or run). */
export function isRefusal(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === REQUEST_FAILED;
}

type Log = Pick<vscode.LogOutputChannel, 'warn' | 'error'>;
type Window = Pick<typeof vscode.window, 'showWarningMessage' | 'showErrorMessage'>;

/** reportFailure logs e under where and shows it: a refusal as a warning, anything else as an error. */
export function reportFailure(log: Log, window: Window | undefined, where: string, e: unknown): void {
  const msg = e instanceof Error ? e.message : String(e);
  if (isRefusal(e)) {
    log.warn(`${where}: ${msg}`);
    void window?.showWarningMessage(`cb-ls: ${msg}`);
    return;
  }
  log.error(`${where}: ${msg}`);
  void window?.showErrorMessage(`cb-ls: ${msg}`);
}
