// "Review in Diff Editor": VS Code's diff editor shows a file as it is
// against the same file with its pending hunks kept. The right side is a
// read-only virtual document (scheme catbuddy-pending) computed from the
// document's text and the hunks the server sent, so it follows the
// user's typing and every catbuddy/pendingChanges notification; nothing
// is written anywhere. Keeping or undoing from the diff editor goes
// through the same commands as the inline CodeLens (pending.ts maps a
// pending document back to its file and run).
import * as vscode from 'vscode';
import { PendingModel, placedAt, PlacedHunk, ShownHunk, withHunks } from './pendingModel';

export const PENDING_SCHEME = 'catbuddy-pending';

/** PendingTarget is what a pending document shows: a file, with every run's hunks or one run's. */
export interface PendingTarget {
  file: vscode.Uri;
  runId?: string;
}

/** pendingUri names the pending document of a file (of one run's hunks, when runId is given). */
export function pendingUri(file: vscode.Uri, runId?: string): vscode.Uri {
  // The path keeps the file's name and extension: the tab's label and the language.
  return vscode.Uri.from({ scheme: PENDING_SCHEME, path: file.path, query: JSON.stringify({ uri: file.toString(), runId }) });
}

/** targetOf reads a pending document's URI; undefined for any other URI. */
export function targetOf(u: vscode.Uri): PendingTarget | undefined {
  if (u.scheme !== PENDING_SCHEME) {
    return undefined;
  }
  try {
    const q = JSON.parse(u.query) as { uri: string; runId?: string };
    return { file: vscode.Uri.parse(q.uri), runId: q.runId || undefined };
  } catch {
    return undefined;
  }
}

/** PendingDiff provides the pending documents and opens the diff editor. */
export class PendingDiff implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly model: PendingModel,
    private readonly asUri: (u: vscode.Uri) => string,
  ) {
    this.subs = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(PENDING_SCHEME, this),
      // Typing moves the hunks: the server's next notification redraws, but
      // the left side changes at once, so the right one follows it.
      vscode.workspace.onDidChangeTextDocument((e) => e.document.uri.scheme !== PENDING_SCHEME && this.refresh(new Set([this.asUri(e.document.uri)]))),
    ];
  }

  /** hunksOf are the hunks a pending document shows. */
  private hunksOf(t: PendingTarget): ShownHunk[] {
    return this.model.hunks(this.asUri(t.file)).filter((h) => !t.runId || h.runId === t.runId);
  }

  /** source is the document's text as the user has it (the open buffer, else the file). */
  private async source(file: vscode.Uri): Promise<string> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.toString());
    return (open ?? (await vscode.workspace.openTextDocument(file))).getText();
  }

  async provideTextDocumentContent(u: vscode.Uri): Promise<string> {
    const t = targetOf(u);
    if (!t) {
      return '';
    }
    return withHunks(await this.source(t.file), this.hunksOf(t)).text;
  }

  /** placed says where each hunk of a pending document is in it (for the cursor's hunk and CodeLens). */
  placed(doc: vscode.TextDocument): { target: PendingTarget; placed: PlacedHunk[] } | undefined {
    const target = targetOf(doc.uri);
    if (!target) {
      return undefined;
    }
    const src = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.file.toString());
    if (!src) {
      return { target, placed: [] };
    }
    return { target, placed: withHunks(src.getText(), this.hunksOf(target)).placed };
  }

  /** hunkAt is the hunk under line of a pending document. */
  hunkAt(doc: vscode.TextDocument, line: number): { target: PendingTarget; hunk: ShownHunk } | undefined {
    const p = this.placed(doc);
    const at = p && placedAt(p.placed, line);
    return p && at ? { target: p.target, hunk: at.hunk } : undefined;
  }

  /**
   * refresh redraws the open pending documents of the given files (the
   * server's URIs), and closes the diff editors of a file that has nothing
   * pending any more: there is nothing left to review in them.
   */
  refresh(files?: Set<string>): void {
    const stale: vscode.Tab[] = [];
    for (const g of vscode.window.tabGroups.all) {
      for (const tab of g.tabs) {
        const input = tab.input;
        const t = input instanceof vscode.TabInputTextDiff ? targetOf(input.modified) : undefined;
        if (t && (!files || files.has(this.asUri(t.file))) && this.hunksOf(t).length === 0) {
          stale.push(tab);
        }
      }
    }
    if (stale.length > 0) {
      void vscode.window.tabGroups.close(stale, true);
    }
    for (const doc of vscode.workspace.textDocuments) {
      const t = targetOf(doc.uri);
      if (t && (!files || files.has(this.asUri(t.file)))) {
        this.changed.fire(doc.uri);
      }
    }
  }

  /**
   * originals names the left sides of these diff editors among editors:
   * "column|uri" of each file a visible pending document shows, since the
   * two sides of a diff editor share its column. The inline decorations
   * stay out of them: the diff says it all.
   */
  originals(editors: readonly vscode.TextEditor[]): Set<string> {
    const out = new Set<string>();
    for (const ed of editors) {
      const t = targetOf(ed.document.uri);
      if (t) {
        out.add(`${ed.viewColumn}|${t.file.toString()}`);
      }
    }
    return out;
  }

  /** open shows file as it is against it with its pending hunks (of runId) kept. */
  async open(file: vscode.Uri, runId?: string, title?: string): Promise<void> {
    const name = vscode.workspace.asRelativePath(file);
    await vscode.commands.executeCommand('vscode.diff', file, pendingUri(file, runId), `${name}: current ↔ pending${title ? ` (${title})` : ''}`, { preview: false });
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
