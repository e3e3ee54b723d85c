// window/showMessageRequest as a modal dialog.
//
// vscode-languageclient answers the server's questions (trust a project, run
// a command) with a notification toast: it hides in the corner, closes
// itself after a while, and a user who never saw it never decided. The
// server's questions decide what runs on the user's machine, so they are
// shown as modal dialogs. The first line of the message is the dialog's
// title, the rest its detail (the command lines, URLs and settings the
// server names). A dismissed dialog (Escape, the Cancel button VS Code
// adds) answers null: the server takes that as "no".
//
// The pure part (dialogPlan, chosenAction) is unit-tested without VS Code;
// registerMessageRequest wires it to the client.

import type * as vscode from 'vscode';

/** MessageActionItem is an action of an LSP window/showMessageRequest. */
export interface MessageActionItem {
  title: string;
  [key: string]: unknown;
}

/** ShowMessageRequestParams are the params of window/showMessageRequest. */
export interface ShowMessageRequestParams {
  type: number;
  message: string;
  actions?: MessageActionItem[];
}

/** Severity picks the VS Code function that shows the dialog. */
export type Severity = 'error' | 'warning' | 'info';

/** DialogPlan is what the modal dialog shows. */
export interface DialogPlan {
  severity: Severity;
  title: string;
  detail: string | undefined;
  buttons: string[];
}

/** dialogPlan turns the request into a modal dialog: first line as title, the rest as detail. */
export function dialogPlan(p: ShowMessageRequestParams): DialogPlan {
  const severity: Severity = p.type === 1 ? 'error' : p.type === 2 ? 'warning' : 'info';
  const text = (p.message ?? '').replace(/\r\n/g, '\n').trim();
  const nl = text.indexOf('\n');
  const title = nl < 0 ? text : text.slice(0, nl).trim();
  const rest = nl < 0 ? '' : text.slice(nl + 1).trim();
  const buttons = (p.actions ?? []).map((a) => a.title).filter((t) => typeof t === 'string' && t !== '');
  return { severity, title, detail: rest === '' ? undefined : rest, buttons };
}

/** chosenAction maps the clicked button back to the server's action item; undefined (dismissed) → null. */
export function chosenAction(p: ShowMessageRequestParams, clicked: string | undefined): MessageActionItem | null {
  if (clicked === undefined) {
    return null;
  }
  return (p.actions ?? []).find((a) => a.title === clicked) ?? null;
}

/** showModal asks the user with a modal dialog and returns the chosen action or null. */
export async function showModal(
  window: Pick<typeof vscode.window, 'showErrorMessage' | 'showWarningMessage' | 'showInformationMessage'>,
  p: ShowMessageRequestParams,
): Promise<MessageActionItem | null> {
  const plan = dialogPlan(p);
  const options: vscode.MessageOptions = { modal: true, detail: plan.detail };
  const show =
    plan.severity === 'error' ? window.showErrorMessage : plan.severity === 'warning' ? window.showWarningMessage : window.showInformationMessage;
  const clicked = await show<string>(plan.title, options, ...plan.buttons);
  return chosenAction(p, clicked);
}

/** RequestClient is the part of the LanguageClient registerMessageRequest uses. */
export interface RequestClient {
  onRequest(method: string, handler: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>): vscode.Disposable;
}

/**
 * registerMessageRequest replaces the client's toast for window/showMessageRequest with a modal
 * dialog. Call it before client.start(): handlers registered then are installed after the
 * client's built-in ones, so this one wins.
 */
export function registerMessageRequest(
  client: RequestClient,
  window: Pick<typeof vscode.window, 'showErrorMessage' | 'showWarningMessage' | 'showInformationMessage'>,
  log: { info(msg: string): void },
): vscode.Disposable {
  return client.onRequest('window/showMessageRequest', async (params) => {
    const answer = await showModal(window, params);
    log.info(`asked "${dialogPlan(params).title}": ${answer ? answer.title : 'dismissed'}`);
    return answer;
  });
}
