// The review step of every agent edit. The server sends workspace/applyEdit
// with needsConfirmation annotations, so VS Code itself opens the Refactor
// Preview; this middleware wraps that to (1) tell the server *why* an edit was
// not applied (VS Code answers a bare applied:false both when the user
// discards the preview and when the buffer moved on; for the latter the
// answer names the stale document in failedChange, and the server merges its
// edit over the user's typing and asks again), and (2) save the edited
// documents before answering, when catbuddy.saveAfterApply is on, so that the
// agent's next tool (grep, exec, go test) already sees the change on disk.
// Saving before the answer, rather than on the server's catbuddy/fileEdit
// notification, is what makes that ordering hold.

import * as vscode from 'vscode';
import { ApplyWorkspaceEditParams, ApplyWorkspaceEditRequest, ApplyWorkspaceEditResult, ResponseError } from 'vscode-languageclient/node';
import { affectedUris, LspWorkspaceEdit, REJECTED, staleAnswer, staleEdits } from './applyEdit';

/** ReviewOptions are what the middleware reads at the time of each edit. */
export interface ReviewOptions {
  saveAfterApply: () => boolean;
  log: vscode.LogOutputChannel;
}

function openVersion(uri: string): number | undefined {
  const want = vscode.Uri.parse(uri).toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === want)?.version;
}

/** handleApplyEdit is the languageclient middleware for workspace/applyEdit. */
export function handleApplyEdit(opts: ReviewOptions) {
  return async (
    params: ApplyWorkspaceEditParams,
    next: ApplyWorkspaceEditRequest.HandlerSignature,
  ): Promise<ApplyWorkspaceEditResult | ResponseError<void>> => {
    const edit = params.edit as LspWorkspaceEdit;
    // Typed before the edit arrived: refused before any preview opens.
    const before = staleEdits(edit, openVersion);
    if (before.length > 0) {
      const answer = staleAnswer(before);
      opts.log.info(`applyEdit ${params.label ?? ''}: not applied: ${answer.failureReason}`);
      return answer;
    }
    const res = await next(params, new vscode.CancellationTokenSource().token);
    if (res instanceof ResponseError) {
      return res;
    }
    if (!res.applied) {
      // The buffer may have changed while the preview was open; only then is it not the user's choice.
      const after = staleEdits(edit, openVersion);
      const answer = res.failureReason === undefined && after.length > 0 ? staleAnswer(after) : { ...res, failureReason: res.failureReason ?? REJECTED };
      opts.log.info(`applyEdit ${params.label ?? ''}: not applied: ${answer.failureReason}`);
      return answer;
    }
    opts.log.info(`applyEdit ${params.label ?? ''}: applied`);
    if (opts.saveAfterApply()) {
      await saveAll(affectedUris(edit), opts.log);
    }
    return res;
  };
}

async function saveAll(uris: readonly string[], log: vscode.LogOutputChannel): Promise<void> {
  for (const u of uris) {
    const want = vscode.Uri.parse(u).toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === want);
    if (!doc || !doc.isDirty) {
      continue;
    }
    try {
      if (!(await doc.save())) {
        log.warn(`save after apply: ${u} was not saved`);
      }
    } catch (e) {
      log.warn(`save after apply: ${u}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
