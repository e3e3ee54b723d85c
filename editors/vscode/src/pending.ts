// A run's pending changes in the editor: the server sends each run's hunks
// (catbuddy/pendingChanges) in the buffers' current coordinates; this view
// draws them and sends catbuddy.keep / catbuddy.discard. A pending hunk is
// not in the document (the document holds the user's text), so the lines it
// replaces are highlighted as removed, and the lines keeping it puts in are
// shown after them as read-only text (VS Code has no virtual lines), in
// full on hover and in the diff editor (pendingDiff.ts). The rules (what
// is pending, where it is now, conflicts) stay in the server.
import * as vscode from 'vscode';
import { PendingModel, PendingNotification, ShownHunk } from './pendingModel';
import { hunkLines, LineSpan } from './pendingDecor';
import { keepTitle, wholeLabel } from './pendingFlags';
import { PENDING_SCHEME, PendingDiff, targetOf } from './pendingDiff';
import { PendingTree } from './pendingTree';
import { lostRow, PendingNode, rowRequest } from './pendingRow';
import { HunkArg, hoverCommands, hoverLinks, hunkLenses, KeepResult, keepLeftText } from './pendingConflict';
import { registerResolutions } from './pendingResolve';
import { Timings } from './timings';
import { nextEditNear } from './nextEdit';

/** Executor sends a server command (Controller.execute). */
export type Executor = <T>(command: string, arg?: unknown) => Promise<T>;

const removedLine = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});
const addedAfter = vscode.window.createTextEditorDecorationType({
  after: { color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'), margin: '0 0 0 2em', fontStyle: 'italic' },
});
/** conflictLine frames and highlights a conflicted hunk's lines: its own
 * type, drawn instead of removedLine, so a conflict stands out. */
const conflictLine = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  backgroundColor: new vscode.ThemeColor('inputValidation.warningBackground'),
  border: '1px solid',
  borderColor: new vscode.ThemeColor('editorWarning.foreground'),
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.warningForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});

/** PendingView shows the pending hunks and keeps or discards them. */
export class PendingView implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  readonly model = new PendingModel();
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 90);
  private readonly tree = new PendingTree(this.model);
  private readonly diffs: PendingDiff;
  private readonly updated = new vscode.EventEmitter<void>();
  /** onDidUpdate fires after each change of what is pending (the chat view's counts). */
  readonly onDidUpdate = this.updated.event;
  /** timings measures the host's work per update and keystroke (catbuddy.pendingTimings). */
  readonly timings = new Timings();
  /** titled holds the runs whose title was asked of the server (a set found at start has none). */
  private readonly titled = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly execute: Executor, private readonly asUri: (u: vscode.Uri) => string, private readonly log?: vscode.LogOutputChannel) {
    this.status.command = 'catbuddy.pendingChanges';
    this.diffs = new PendingDiff(this.model, asUri);
    const docs = [{ scheme: 'file' }, { scheme: PENDING_SCHEME }];
    this.disposables.push(
      this.status,
      this.lensChanged,
      this.updated,
      this.tree,
      this.diffs,
      vscode.window.createTreeView('catbuddy.pending', { treeDataProvider: this.tree, showCollapseAll: true }),
      vscode.languages.registerCodeLensProvider(docs, this),
      vscode.languages.registerHoverProvider(docs, this),
      // Other editors show: their decorations, not what is pending, change.
      vscode.window.onDidChangeVisibleTextEditors(() => this.redraw(undefined, false)),
      vscode.window.onDidChangeActiveTextEditor(() => this.setContext()),
      vscode.window.onDidChangeTextEditorSelection(() => this.setConflictContext()),
      vscode.workspace.onDidChangeTextDocument((e) => this.typed(e.document)),
      vscode.commands.registerCommand('catbuddy.keepHunk', (a?: HunkArg) => this.act('catbuddy.keep', a)),
      vscode.commands.registerCommand('catbuddy.undoHunk', (a?: HunkArg) => this.act('catbuddy.discard', a)),
      vscode.commands.registerCommand('catbuddy.keepAll', (a?: vscode.Uri | RunArg) => this.all('catbuddy.keep', a)),
      vscode.commands.registerCommand('catbuddy.undoAll', (a?: vscode.Uri | RunArg) => this.all('catbuddy.discard', a)),
      vscode.commands.registerCommand('catbuddy.pendingChanges', () => this.pick()),
      vscode.commands.registerCommand('catbuddy.reviewInDiff', (a?: vscode.Uri | RunArg) => this.review(a)),
      // The Pending Changes view's row buttons (pendingRow.ts).
      vscode.commands.registerCommand('catbuddy.pendingView.keepAll', (n?: PendingNode) => this.row('keep', n)),
      vscode.commands.registerCommand('catbuddy.pendingView.undoAll', (n?: PendingNode) => this.row('undo', n)),
      vscode.commands.registerCommand('catbuddy.pendingView.keepHunk', (n?: PendingNode) => this.row('keep', n)),
      vscode.commands.registerCommand('catbuddy.pendingView.undoHunk', (n?: PendingNode) => this.row('undo', n)),
      vscode.commands.registerCommand('catbuddy.pendingView.review', (n?: PendingNode) =>
        n && n.type !== 'hunk' ? this.review(n) : this.lost('review', n)),
      vscode.commands.registerCommand('catbuddy.pendingTimings', () => this.report()),
      // Tab and Escape on a next-edit suggestion (nextEdit.ts).
      vscode.commands.registerCommand('catbuddy.keepNextEdit', () => this.nextEdit('catbuddy.keep')),
      vscode.commands.registerCommand('catbuddy.discardNextEdit', () => this.nextEdit('catbuddy.discard')),
      // A conflicted hunk's ways out, on a lens, the hover, the cursor's hunk or a view row.
      registerResolutions(execute, this.model, () => this.cursorArg(), (c, n) => this.lost(c, n), log),
    );
  }

  /** update applies a catbuddy/pendingChanges notification. */
  update(n: PendingNotification): void {
    const t = this.timings.start();
    const touched = this.model.update(n);
    this.redraw(touched);
    this.timings.stop('update', t, this.model.hunksOfRun(n.runId));
    if (n.files.length > 0 && !this.model.run(n.runId)?.title && !this.titled.has(n.runId)) {
      // A set found at start comes without its run's title: the list has it.
      this.titled.add(n.runId);
      void this.refresh();
    }
  }

  /** clear forgets everything (the server stopped; the next one notifies again). */
  clear(): void {
    this.model.clear();
    this.redraw();
  }

  /**
   * report is catbuddy.pendingTimings (Agent: Pending Changes Timings),
   * for benchmarks: the medians of the work measured since the last
   * report, logged and returned; it starts the next measurement.
   */
  private report(): unknown {
    const r = this.timings.report();
    this.timings.reset();
    this.log?.info(`pending timings: ${JSON.stringify(r)}`);
    return r;
  }

  private typingTimer?: ReturnType<typeof setTimeout>;

  /** typed asks the server for the hunks again once typing in a document
   * with pending hunks pauses: it sends a set when the set changes, not on
   * every didChange, and the ranges and conflicts are its to say. */
  private typed(doc: vscode.TextDocument): void {
    const t = this.timings.start();
    if (!this.model.has(this.asUri(doc.uri))) {
      return;
    }
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => void this.refresh(), 300);
    this.timings.stop('keystroke', t);
  }

  /** refresh replaces what is shown by catbuddy.pendingChanges' answer. */
  async refresh(): Promise<void> {
    try {
      const res = await this.execute<{ runs?: PendingNotification[] }>('catbuddy.pendingChanges', {});
      const t = this.timings.start();
      const seen = new Set<string>();
      const touched = new Set<string>();
      for (const r of res?.runs ?? []) {
        seen.add(r.runId);
        this.model.update(r).forEach((u) => touched.add(u));
      }
      for (const id of this.model.runIds()) {
        if (!seen.has(id)) {
          this.model.update({ runId: id, files: [] }).forEach((u) => touched.add(u));
        }
      }
      this.redraw(touched);
      this.timings.stop('update', t, this.model.count());
    } catch {
      // The server is gone or restarting: its successor notifies what is pending.
    }
  }

  /** redraw decorates every visible editor; it is the per-keystroke cost.
   * touched, when given, are the files whose open diff editors change;
   * changed is false when only the visible editors did: then the view's
   * rows stay (a refresh would make VS Code forget them, and a click on a
   * row's button in that moment would arrive without its row). */
  redraw(touched?: Set<string>, changed = true): void {
    const several = this.model.severalRuns();
    const originals = this.diffs.originals(vscode.window.visibleTextEditors);
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.scheme === PENDING_SCHEME) {
        continue;
      }
      if (originals.has(`${ed.viewColumn}|${ed.document.uri.toString()}`)) {
        // The diff editor shows the hunks itself.
        ed.setDecorations(removedLine, []);
        ed.setDecorations(conflictLine, []);
        ed.setDecorations(addedAfter, []);
        continue;
      }
      const d = hunkLines(this.model.hunks(this.asUri(ed.document.uri)), ed.document.lineCount, several);
      const span = (l: LineSpan) => new vscode.Range(l.first, 0, l.last, 0);
      const removed = d.removed.map(span);
      const conflicts = d.conflicts.map(span);
      const after: vscode.DecorationOptions[] = d.after.map((a) => ({
        range: new vscode.Range(a.line, Number.MAX_SAFE_INTEGER, a.line, Number.MAX_SAFE_INTEGER),
        renderOptions: { after: { contentText: a.text, ...(a.conflict ? { color: new vscode.ThemeColor('editorWarning.foreground') } : {}) } },
      }));
      ed.setDecorations(removedLine, removed);
      ed.setDecorations(conflictLine, conflicts);
      ed.setDecorations(addedAfter, after);
    }
    const count = this.model.count();
    this.status.text = `$(diff) ${count} pending`;
    this.status.tooltip = 'Agent: pending changes — click to review';
    count > 0 ? this.status.show() : this.status.hide();
    this.lensChanged.fire();
    if (changed) {
      this.tree.refresh();
    }
    this.diffs.refresh(touched);
    this.setContext();
    if (changed) {
      this.updated.fire();
    }
  }

  /** shownFile is the file an editor's document shows: a pending document's file, else its own. */
  private shownFile(doc: vscode.TextDocument): vscode.Uri {
    return targetOf(doc.uri)?.file ?? doc.uri;
  }

  private hasContext?: boolean;

  private setContext(): void {
    const ed = vscode.window.activeTextEditor;
    const has = !!ed && this.model.has(this.asUri(this.shownFile(ed.document)));
    if (has !== this.hasContext) {
      this.hasContext = has;
      void vscode.commands.executeCommand('setContext', 'catbuddy.fileHasPending', has);
    }
    this.setConflictContext();
  }

  private conflictContext?: boolean;

  /** setConflictContext sets catbuddy.conflictAtCursor, which shows the
   * resolutions in the palette only on a conflicted hunk; VS Code is told
   * only when it changes. */
  private setConflictContext(): void {
    const ed = vscode.window.activeTextEditor;
    const on = !!ed && !!this.hunkAtCursor(ed)?.hunk.conflict;
    if (on !== this.conflictContext) {
      this.conflictContext = on;
      void vscode.commands.executeCommand('setContext', 'catbuddy.conflictAtCursor', on);
    }
    this.setNextEditContext();
  }

  private nextEditContext?: boolean;

  /** setNextEditContext sets catbuddy.nextEditAtCursor, on which Tab keeps
   * and Escape discards a next-edit suggestion: only while one is on or
   * next to the cursor's line, so that both keys stay the editor's
   * otherwise. VS Code is told only when it changes. */
  private setNextEditContext(): void {
    const on = !!this.nextEditAtCursor();
    if (on !== this.nextEditContext) {
      this.nextEditContext = on;
      void vscode.commands.executeCommand('setContext', 'catbuddy.nextEditAtCursor', on);
    }
  }

  /** nextEditAtCursor is the next-edit hunk on or next to the active editor's cursor. */
  private nextEditAtCursor(): ShownHunk | undefined {
    const ed = vscode.window.activeTextEditor;
    if (!ed || ed.document.uri.scheme === PENDING_SCHEME) {
      return undefined;
    }
    const uri = this.asUri(ed.document.uri);
    return this.model.has(uri) ? nextEditNear(this.model.hunks(uri), ed.selection.active.line) : undefined;
  }

  /** nextEdit keeps or discards the next-edit suggestion at the cursor
   * (Tab, Escape): the whole pseudo-run, its one hunk. */
  private async nextEdit(command: string): Promise<void> {
    const h = this.nextEditAtCursor();
    if (!h) {
      return;
    }
    try {
      const res = await this.execute<KeepResult>(command, { runId: h.runId });
      const left = res?.left ?? [];
      if (left.length > 0) {
        void vscode.window.showInformationMessage(`Next edit not applied: ${left.map((l) => l.reason).join('; ')}`);
      }
    } catch (e) {
      // Withdrawn by a keystroke before its empty notification arrived:
      // nothing to tell, the suggestion is gone either way.
      this.log?.info(`${command} ${h.runId}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** hunkAtCursor is the hunk under ed's cursor, in a file or in a diff editor's pending side. */
  private hunkAtCursor(ed: vscode.TextEditor): ShownHunk | undefined {
    const line = ed.selection.active.line;
    if (ed.document.uri.scheme === PENDING_SCHEME) {
      return this.diffs.hunkAt(ed.document, line)?.hunk;
    }
    const uri = this.asUri(ed.document.uri);
    return this.model.has(uri) ? this.model.at(uri, line) : undefined;
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const p = this.diffs.placed(doc);
    if (p) {
      // The pending side of a diff editor: each hunk where its new lines are.
      const last = Math.max(0, doc.lineCount - 1);
      return p.placed.flatMap(({ hunk: h, first }) => {
        const range = new vscode.Range(Math.min(first, last), 0, Math.min(first, last), 0);
        const arg: HunkArg = { uri: p.target.file.toString(), runId: h.runId, hunk: h.hunk.id };
        return hunkLenses(h, arg).map((l) => new vscode.CodeLens(range, l));
      });
    }
    const t = this.timings.start();
    const out = this.fileLenses(doc);
    this.timings.stop('codeLens', t, out.length / 2);
    return out;
  }

  private fileLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const uri = this.asUri(doc.uri);
    const out: vscode.CodeLens[] = [];
    const several = this.model.severalRuns();
    for (const h of this.model.hunks(uri)) {
      const line = Math.min(h.first, Math.max(0, doc.lineCount - 1));
      const range = new vscode.Range(line, 0, line, 0);
      const arg: HunkArg = { uri: doc.uri.toString(), runId: h.runId, hunk: h.hunk.id };
      const tag = several ? ` (${h.title})` : '';
      // Keep and Undo; on a conflict, the four resolutions and Undo.
      for (const l of hunkLenses(h, arg, tag)) {
        out.push(new vscode.CodeLens(range, l));
      }
    }
    // A whole-file item has no lines here: one lens on the first line says
    // what it is, and keeps or undoes it as a whole (unless keep is refused).
    const top = new vscode.Range(0, 0, 0, 0);
    for (const w of this.model.wholeFiles(uri)) {
      const arg: RunArg = { runId: w.runId, files: [w.file.uri] };
      const tag = several ? ` (${w.title})` : '';
      out.push(new vscode.CodeLens(top, { title: wholeLabel(w.file) ?? w.file.path, command: '' }));
      out.push(new vscode.CodeLens(top, w.file.keepRefused ? { title: keepTitle(w.file), command: '' } : { title: keepTitle(w.file, tag), command: 'catbuddy.keepAll', arguments: [arg] }));
      out.push(new vscode.CodeLens(top, { title: 'Undo', command: 'catbuddy.undoAll', arguments: [arg] }));
    }
    return out;
  }

  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const h = doc.uri.scheme === PENDING_SCHEME ? this.diffs.hunkAt(doc, pos.line)?.hunk : this.model.at(this.asUri(doc.uri), pos.line);
    if (!h) {
      return undefined;
    }
    const arg: HunkArg = { uri: this.shownFile(doc).toString(), runId: h.runId, hunk: h.hunk.id };
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: hoverCommands };
    md.appendMarkdown(`**Pending change** of ${h.title}${h.hunk.label ? ` · ${h.hunk.label}` : ''}\n\n`);
    if (h.hunk.conflict) {
      md.appendMarkdown(`$(warning) ${h.hunk.conflict}\n\n`);
    }
    const diff = [...h.hunk.oldText.replace(/\n$/, '').split('\n').filter((_, i, a) => a.length > 1 || a[0] !== '').map((l) => '-' + l), ...h.added.map((l) => '+' + l)];
    md.appendCodeblock(diff.join('\n'), 'diff');
    md.appendMarkdown(hoverLinks(h, arg));
    return new vscode.Hover(md);
  }

  /** row keeps or undoes what a Pending Changes view row stands for. */
  private async row(action: 'keep' | 'undo', n?: PendingNode): Promise<void> {
    const req = rowRequest(action, n);
    if (!req) {
      this.lost(action, n);
      return;
    }
    await this.send(req.command, req.arg);
  }

  /** lost tells the user that a row's button came without its row, and did nothing. */
  private lost(action: string, n: unknown): void {
    this.log?.warn(`pending view: ${action} arrived without its row (${JSON.stringify(n)}); nothing done`);
    void vscode.window.showWarningMessage(lostRow(action === 'review' ? 'opened' : action === 'keep' || action === 'undo' ? undefined : 'resolved'));
  }

  /** act keeps or discards one hunk: the one given, else the one under the cursor. */
  private async act(command: string, a?: HunkArg): Promise<void> {
    const arg = a ?? this.cursorArg();
    if (!arg) {
      void vscode.window.showInformationMessage('No pending change under the cursor.');
      return;
    }
    await this.send(command, { runId: arg.runId, hunks: [arg.hunk] });
  }

  /** cursorArg names the hunk under the active editor's cursor (in the
   * diff editor's pending side, the cursor's line is in the pending text). */
  private cursorArg(): HunkArg | undefined {
    const ed = vscode.window.activeTextEditor;
    const h = ed && this.hunkAtCursor(ed);
    return ed && h ? { uri: this.shownFile(ed.document).toString(), runId: h.runId, hunk: h.hunk.id } : undefined;
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
    // A diff editor's pending side stands for its file, and for its run when it shows one.
    const t = targetOf(u);
    const uri = this.asUri(t?.file ?? u);
    if (t?.runId) {
      await this.send(command, { runId: t.runId, files: [uri] });
      return;
    }
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
        // A conflicted hunk is told its ways out.
        const ids = new Set(left.map((l) => l.hunk));
        const conflicted = (this.model.run(arg.runId)?.files ?? []).some((f) => (f.hunks ?? []).some((h) => ids.has(h.id) && !!h.conflict));
        void vscode.window.showWarningMessage(keepLeftText(res, conflicted));
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
        items.push({ label: `${file.path}  +${added} −${removed}`, description: file.group ? `${file.group.count} files` : (wholeLabel(file) ?? file.kind), uri: file.uri, line: file.hunks?.[0]?.range.start.line ?? 0 });
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
      const files = a.files ?? this.model.files(a.runId).filter((f) => !f.file.group && !f.file.whole && f.file.kind === 'changed').map((f) => f.file.uri);
      const title = this.model.severalRuns() ? this.model.run(a.runId)?.title : undefined;
      for (const f of files) {
        // The server's URI of an open document is the editor's own.
        const doc = vscode.workspace.textDocuments.find((d) => this.asUri(d.uri) === f);
        await this.diffs.open(doc?.uri ?? vscode.Uri.parse(f), a.runId, title);
      }
      return;
    }
    const u = a ?? vscode.window.activeTextEditor?.document.uri;
    if (u) {
      await this.diffs.open(targetOf(u)?.file ?? u);
    }
  }

  dispose(): void {
    clearTimeout(this.typingTimer);
    this.disposables.forEach((d) => d.dispose());
  }
}

/** RunArg names a run, or some of its files (a Pending Changes view row). */
interface RunArg { runId: string; files?: string[] }
