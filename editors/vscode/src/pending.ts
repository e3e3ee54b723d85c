// A run's pending changes in the editor: the server sends each run's hunks
// (catbuddy/pendingChanges) in the buffers' current coordinates; this view
// draws them and sends catbuddy.keep / catbuddy.discard. A pending hunk is
// not in the document (the document holds the user's text), so the lines it
// replaces are highlighted as removed, and the lines keeping it puts in are
// shown after them as read-only text (VS Code has no virtual lines), in
// full on hover and in the diff editor. The rules (what is pending, where
// it is now, conflicts) stay in the server.
import * as vscode from 'vscode';
import { afterText, PendingModel, PendingNotification } from './pendingModel';
import { PendingTree } from './pendingTree';

/** Executor sends a server command (Controller.execute). */
export type Executor = <T>(command: string, arg?: unknown) => Promise<T>;

interface KeepResult { kept?: string[]; left?: { hunk: string; reason: string }[] }

const removedLine = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});
const addedAfter = vscode.window.createTextEditorDecorationType({
  after: { color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'), margin: '0 0 0 2em', fontStyle: 'italic' },
});
const conflictLine = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  border: '1px dashed',
  borderColor: new vscode.ThemeColor('editorWarning.foreground'),
});

/** PendingView shows the pending hunks and keeps or discards them. */
export class PendingView implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  readonly model = new PendingModel();
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 90);
  private readonly tree = new PendingTree(this.model);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly execute: Executor, private readonly asUri: (u: vscode.Uri) => string) {
    this.status.command = 'catbuddy.pendingChanges';
    this.disposables.push(
      this.status,
      this.lensChanged,
      this.tree,
      vscode.window.createTreeView('catbuddy.pending', { treeDataProvider: this.tree, showCollapseAll: true }),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
      vscode.languages.registerHoverProvider({ scheme: 'file' }, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.redraw()),
      vscode.window.onDidChangeActiveTextEditor(() => this.setContext()),
      vscode.workspace.onDidChangeTextDocument((e) => this.typed(e.document)),
      vscode.commands.registerCommand('catbuddy.keepHunk', (a?: HunkArg) => this.act('catbuddy.keep', a)),
      vscode.commands.registerCommand('catbuddy.undoHunk', (a?: HunkArg) => this.act('catbuddy.discard', a)),
      vscode.commands.registerCommand('catbuddy.keepAll', (a?: vscode.Uri | RunArg) => this.all('catbuddy.keep', a)),
      vscode.commands.registerCommand('catbuddy.undoAll', (a?: vscode.Uri | RunArg) => this.all('catbuddy.discard', a)),
      vscode.commands.registerCommand('catbuddy.pendingChanges', () => this.pick()),
      vscode.commands.registerCommand('catbuddy.reviewInDiff', (a?: vscode.Uri | RunArg) => this.review(a)),
    );
  }

  /** update applies a catbuddy/pendingChanges notification. */
  update(n: PendingNotification): void {
    this.model.update(n);
    this.redraw();
  }

  /** clear forgets everything (the server stopped; the next one notifies again). */
  clear(): void {
    this.model.clear();
    this.redraw();
  }

  private typingTimer?: ReturnType<typeof setTimeout>;

  /** typed asks the server for the hunks again once typing in a document
   * with pending hunks pauses: it sends a set when the set changes, not on
   * every didChange, and the ranges and conflicts are its to say. */
  private typed(doc: vscode.TextDocument): void {
    if (this.model.hunks(this.asUri(doc.uri)).length === 0) {
      return;
    }
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => void this.refresh(), 300);
  }

  /** refresh replaces what is shown by catbuddy.pendingChanges' answer. */
  async refresh(): Promise<void> {
    try {
      const res = await this.execute<{ runs?: PendingNotification[] }>('catbuddy.pendingChanges', {});
      const seen = new Set<string>();
      for (const r of res?.runs ?? []) {
        seen.add(r.runId);
        this.model.update(r);
      }
      for (const id of this.model.runIds()) {
        if (!seen.has(id)) {
          this.model.update({ runId: id, files: [] });
        }
      }
      this.redraw();
    } catch {
      // The server is gone or restarting: its successor notifies what is pending.
    }
  }

  /** redraw decorates every visible editor; it is the per-keystroke cost. */
  redraw(): void {
    const several = this.model.severalRuns();
    for (const ed of vscode.window.visibleTextEditors) {
      const removed: vscode.Range[] = [];
      const conflicts: vscode.Range[] = [];
      const after: vscode.DecorationOptions[] = [];
      const n = ed.document.lineCount;
      for (const h of this.model.hunks(this.asUri(ed.document.uri))) {
        const last = Math.min(h.last, n) - 1;
        if (h.last > h.first) {
          const r = new vscode.Range(h.first, 0, last, 0);
          (h.hunk.conflict ? conflicts : removed).push(r);
          if (h.hunk.conflict) {
            removed.push(r);
          }
        }
        const at = Math.max(0, Math.min(h.last > h.first ? last : h.first, n - 1));
        after.push({ range: new vscode.Range(at, Number.MAX_SAFE_INTEGER, at, Number.MAX_SAFE_INTEGER), renderOptions: { after: { contentText: afterText(h, several) } } });
      }
      ed.setDecorations(removedLine, removed);
      ed.setDecorations(conflictLine, conflicts);
      ed.setDecorations(addedAfter, after);
    }
    const count = this.model.count();
    this.status.text = `$(diff) ${count} pending`;
    this.status.tooltip = 'Agent: pending changes — click to review';
    count > 0 ? this.status.show() : this.status.hide();
    this.lensChanged.fire();
    this.tree.refresh();
    this.setContext();
  }

  private setContext(): void {
    const ed = vscode.window.activeTextEditor;
    const has = !!ed && this.model.hunks(this.asUri(ed.document.uri)).length > 0;
    void vscode.commands.executeCommand('setContext', 'catbuddy.fileHasPending', has);
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const uri = this.asUri(doc.uri);
    const out: vscode.CodeLens[] = [];
    const several = this.model.severalRuns();
    for (const h of this.model.hunks(uri)) {
      const line = Math.min(h.first, Math.max(0, doc.lineCount - 1));
      const range = new vscode.Range(line, 0, line, 0);
      const arg: HunkArg = { uri: doc.uri.toString(), runId: h.runId, hunk: h.hunk.id };
      const tag = several ? ` (${h.title})` : '';
      out.push(new vscode.CodeLens(range, { title: `Keep${tag}`, command: 'catbuddy.keepHunk', arguments: [arg] }));
      out.push(new vscode.CodeLens(range, { title: 'Undo', command: 'catbuddy.undoHunk', arguments: [arg] }));
    }
    return out;
  }

  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const h = this.model.at(this.asUri(doc.uri), pos.line);
    if (!h) {
      return undefined;
    }
    const arg = encodeURIComponent(JSON.stringify([{ uri: doc.uri.toString(), runId: h.runId, hunk: h.hunk.id }]));
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['catbuddy.keepHunk', 'catbuddy.undoHunk'] };
    md.appendMarkdown(`**Pending change** of ${h.title}${h.hunk.label ? ` · ${h.hunk.label}` : ''}\n\n`);
    if (h.hunk.conflict) {
      md.appendMarkdown(`$(warning) ${h.hunk.conflict}\n\n`);
    }
    const diff = [...h.hunk.oldText.replace(/\n$/, '').split('\n').filter((_, i, a) => a.length > 1 || a[0] !== '').map((l) => '-' + l), ...h.added.map((l) => '+' + l)];
    md.appendCodeblock(diff.join('\n'), 'diff');
    md.appendMarkdown(`[Keep](command:catbuddy.keepHunk?${arg}) · [Undo](command:catbuddy.undoHunk?${arg})`);
    return new vscode.Hover(md);
  }

  /** act keeps or discards one hunk: the one given, else the one under the cursor. */
  private async act(command: string, a?: HunkArg): Promise<void> {
    let arg = a;
    if (!arg) {
      const ed = vscode.window.activeTextEditor;
      const h = ed && this.model.at(this.asUri(ed.document.uri), ed.selection.active.line);
      if (!ed || !h) {
        void vscode.window.showInformationMessage('No pending change under the cursor.');
        return;
      }
      arg = { uri: ed.document.uri.toString(), runId: h.runId, hunk: h.hunk.id };
    }
    await this.send(command, { runId: arg.runId, hunks: [arg.hunk] });
  }

  /** all keeps or discards every hunk of a file (default: the active
   * editor's), of a run, or of a run's files (a Pending Changes view row). */
  private async all(command: string, a?: vscode.Uri | RunArg): Promise<void> {
    if (a && 'runId' in a) {
      await this.send(command, a.files ? { runId: a.runId, files: a.files } : { runId: a.runId });
      return;
    }
    const u = a instanceof vscode.Uri ? a : vscode.window.activeTextEditor?.document.uri;
    if (!u) {
      return;
    }
    const uri = this.asUri(u);
    const runs = new Set(this.model.hunks(uri).map((h) => h.runId));
    for (const runId of runs) {
      await this.send(command, { runId, files: [uri] });
    }
  }

  private async send(command: string, arg: { runId: string; files?: string[]; hunks?: string[] }): Promise<void> {
    try {
      const res = await this.execute<KeepResult & { discarded?: string[] }>(command, arg);
      const left = res?.left ?? [];
      if (left.length > 0) {
        void vscode.window.showWarningMessage(`Kept ${res.kept?.length ?? 0} hunk(s); left pending: ${left.map((l) => l.reason).join('; ')}`);
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`${command}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** pick lists every pending hunk; choosing one opens it. */
  private async pick(): Promise<void> {
    const items: (vscode.QuickPickItem & { uri?: string; line?: number })[] = [];
    for (const runId of this.model.runIds()) {
      const run = this.model.run(runId);
      items.push({ label: run?.title ?? runId, kind: vscode.QuickPickItemKind.Separator });
      for (const { file, added, removed } of this.model.files(runId)) {
        items.push({ label: `${file.path}  +${added} −${removed}`, description: file.group ? `${file.group.count} files` : file.kind, uri: file.uri, line: file.hunks?.[0]?.range.start.line ?? 0 });
      }
    }
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Nothing pending.');
      return;
    }
    const it = await vscode.window.showQuickPick(items, { placeHolder: 'Pending changes' });
    if (it?.uri) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(it.uri));
      const ed = await vscode.window.showTextDocument(doc);
      const pos = new vscode.Position(it.line ?? 0, 0);
      ed.selection = new vscode.Selection(pos, pos);
      ed.revealRange(new vscode.Range(pos, pos));
    }
  }

  /** review opens the diff editor for a file (default: the active editor's),
   * or for each file of a run or a run's file (a Pending Changes view row)
   * with only that run's hunks. */
  private async review(a?: vscode.Uri | RunArg): Promise<void> {
    if (a && 'runId' in a) {
      const files = a.files ?? this.model.files(a.runId).filter((f) => !f.file.group && f.file.kind === 'changed').map((f) => f.file.uri);
      for (const f of files) {
        await this.diff(vscode.Uri.parse(f), a.runId);
      }
      return;
    }
    await this.diff(a);
  }

  /** diff opens VS Code's diff editor: the file as it is against it with
   * every pending hunk (of runId, when given) kept. */
  private async diff(a?: vscode.Uri, runId?: string): Promise<void> {
    const u = a ?? vscode.window.activeTextEditor?.document.uri;
    if (!u) {
      return;
    }
    const doc = await vscode.workspace.openTextDocument(u);
    const hs = this.model.hunks(this.asUri(u)).filter((h) => !runId || h.runId === runId);
    const text = doc.getText();
    // Apply from the bottom so earlier offsets stay valid.
    let pending = text;
    for (const h of [...hs].reverse()) {
      const start = doc.offsetAt(new vscode.Position(h.hunk.range.start.line, h.hunk.range.start.character));
      const end = doc.offsetAt(new vscode.Position(h.hunk.range.end.line, h.hunk.range.end.character));
      pending = pending.slice(0, start) + h.hunk.newText + pending.slice(end);
    }
    const right = await vscode.workspace.openTextDocument({ content: pending, language: doc.languageId });
    await vscode.commands.executeCommand('vscode.diff', u, right.uri, `${vscode.workspace.asRelativePath(u)}: current ↔ pending`);
  }

  dispose(): void {
    clearTimeout(this.typingTimer);
    this.disposables.forEach((d) => d.dispose());
  }
}

interface HunkArg { uri: string; runId: string; hunk: string }
/** RunArg names a run, or some of its files (a Pending Changes view row). */
interface RunArg { runId: string; files?: string[] }
