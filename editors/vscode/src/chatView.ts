// The "Catbuddy" chat view: a webview view in the side bar that shows one
// run as a conversation (from the server's catbuddy/runEvent stream, or
// the transcript of a stored run) and sends what the user types as
// catbuddy.reply — or as a new Ask when no run is shown. The page itself
// is src/webview/chat.ts; this side keeps the events and talks to cb-ls,
// and answers the page's @-path completions from the workspace's files.

import * as vscode from 'vscode';
import { Controller } from './controller';
import { completePaths, listFiles } from './mentionInput';
import { PendingSummary } from './pendingModel';
import { reportFailure } from './refusal';
import { RunEvent } from './runs';

/** ChatEvent is a runEvent with the fields the chat draws. */
export interface ChatEvent extends RunEvent {
  callId?: string;
  input?: string;
  edit?: { uri: string; path: string; added: number; removed: number; diff?: string };
}

/** StoredRun is one entry of catbuddy.listRuns. */
interface StoredRun {
  runId: string;
  title: string;
  command: string;
  outcome: string;
  turns: number;
  files: string[];
  tokens: { inputTokens: number; outputTokens: number };
  updated: string;
  transcriptUri?: string;
}

export const CHAT_VIEW = 'catbuddy.chat';

/** ChatView provides the chat webview view. */
export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view?: vscode.WebviewView;
  private readonly events = new Map<string, ChatEvent[]>();
  private readonly titles = new Map<string, string>();
  private readonly histories = new Map<string, string>();
  private current?: string;
  /** files is the workspace listing the open @-path list ranks, read again for each new list. */
  private files?: Promise<string[]>;
  private readonly subs: vscode.Disposable[] = [];
  /** pendingOf, when set, counts a run's pending changes (the PendingView's model). */
  pendingOf?: (runId: string) => PendingSummary | undefined;

  constructor(
    private readonly c: Controller,
    private readonly extensionUri: vscode.Uri,
  ) {
    this.subs.push(
      c.onAnyRunEvent((ev) => this.onEvent(ev as ChatEvent)),
      c.onDidChange(() => this.onServerChange()),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const script = vscode.Uri.joinPath(this.extensionUri, 'out', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [media, script] };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((m) => void this.onMessage(m).catch((e) => this.fail(e)));
    view.onDidDispose(() => (this.view = undefined));
  }

  /**
   * reveal shows a run the user just started (Fix This, Explain This, Ask,
   * a custom command) in the view, opening the view when it is closed
   * unless catbuddy.revealChat is off. The focus stays where it is (the
   * editor, or the Refactor Preview that may follow): the view command's
   * preserveFocus, and WebviewView.show(true). A failure is logged: the
   * run goes on whether or not it is shown.
   */
  reveal(runId: string): Promise<void> {
    return this.doReveal(runId).catch((e) => this.c.log.warn(`revealing run ${runId} in the chat view: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async doReveal(runId: string): Promise<void> {
    this.current = runId;
    this.post();
    if (this.view?.visible || !vscode.workspace.getConfiguration('catbuddy').get<boolean>('revealChat', true)) {
      return;
    }
    if (this.view) {
      this.view.show(true);
      return;
    }
    // The view was never opened: the page draws the run when it is ready.
    await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`, { preserveFocus: true });
  }

  /** show opens the view on runId and moves the focus there (a button the user clicked). */
  async show(runId: string): Promise<void> {
    this.current = runId;
    this.post();
    await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
  }

  /** shows tells whether the view is visible with runId in it. */
  shows(runId: string): boolean {
    return !!this.view?.visible && this.current === runId;
  }

  /** focus opens the view with the cursor in its input box. */
  async focus(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
    void this.view?.webview.postMessage({ type: 'focus' });
  }

  private onEvent(ev: ChatEvent): void {
    if (typeof ev?.runId !== 'string') {
      return;
    }
    let list = this.events.get(ev.runId);
    if (!list) {
      list = [];
      this.events.set(ev.runId, list);
    }
    list.push(ev);
    if (ev.kind === 'start' && ev.title) {
      this.titles.set(ev.runId, ev.title);
    }
    if (ev.kind === 'start' && (ev.runId === this.current || !this.running(this.current))) {
      // A new run takes the view, unless the one shown is still going; a
      // new turn redraws its run (the title may have come with it). A new
      // run is revealed however it started: the extension's commands, and
      // the server's code actions (Explain This, custom commands), which
      // reach the server without passing through them.
      this.current = ev.runId;
      if ((ev.turn ?? 1) === 1) {
        void this.reveal(ev.runId);
      } else {
        this.post();
      }
      return;
    }
    if (ev.runId === this.current) {
      void this.view?.webview.postMessage({ type: 'event', runId: ev.runId, ev });
    }
  }

  private running(runId?: string): boolean {
    const list = runId ? this.events.get(runId) : undefined;
    return !!list && list.length > 0 && list[list.length - 1].kind !== 'end';
  }

  /** onServerChange ends the runs a stopped server took with it. */
  private onServerChange(): void {
    if (this.c.runs.server === 'running' || this.c.runs.server === 'starting') {
      return;
    }
    for (const runId of this.events.keys()) {
      if (this.running(runId)) {
        this.onEvent({ runId, kind: 'end', outcome: 'error', error: 'cb-ls stopped' });
      }
    }
  }

  /** lastPending is the count the page shows, so that an unchanged one is not posted again. */
  private lastPending = '';

  private post(): void {
    const id = this.current;
    const run = id
      ? { runId: id, title: `${this.titles.get(id) ?? 'Agent'} (${id})`, history: this.histories.get(id), events: this.events.get(id) ?? [], pending: this.pendingOf?.(id) ?? null }
      : null;
    this.lastPending = run ? `${id}:${JSON.stringify(run.pending)}` : '';
    void this.view?.webview.postMessage({ type: 'show', run });
  }

  /** pendingChanged tells the page the shown run's pending count (after every catbuddy/pendingChanges). */
  pendingChanged(): void {
    const id = this.current;
    const pending = id ? (this.pendingOf?.(id) ?? null) : null;
    const key = `${id}:${JSON.stringify(pending)}`;
    if (!id || key === this.lastPending) {
      return;
    }
    this.lastPending = key;
    void this.view?.webview.postMessage({ type: 'pending', runId: id, pending });
  }

  /** pendingAction runs a button of the run's pending bar: the same commands as the Pending Changes view. */
  private async pendingAction(runId: string, action?: string): Promise<void> {
    const command = { keep: 'catbuddy.keepAll', undo: 'catbuddy.undoAll', review: 'catbuddy.reviewInDiff' }[action ?? ''];
    if (command) {
      await vscode.commands.executeCommand(command, { runId });
    }
  }

  private async onMessage(m: { type: string; runId?: string; text?: string; callId?: string; id?: number; partial?: string; fresh?: boolean; action?: string }): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.post();
        return;
      case 'send':
        return this.send(m.runId, m.text ?? '');
      case 'stop':
        if (m.runId) {
          await this.c.execute('catbuddy.cancel', { runId: m.runId });
        }
        return;
      case 'runs':
        await this.pick();
        return;
      case 'new':
        this.current = undefined;
        this.post();
        void this.view?.webview.postMessage({ type: 'focus' });
        return;
      case 'diff':
        return this.openDiff(m.runId, m.callId);
      case 'mentions':
        return this.mentions(m.id ?? 0, m.partial ?? '', !!m.fresh);
      case 'pending':
        return m.runId ? this.pendingAction(m.runId, m.action) : undefined;
    }
  }

  /**
   * mentions answers the page's request id with the workspace files for the
   * @word "@" + partial, ranked as in the Ask input. A list that opens
   * (fresh) reads the workspace again; the keystrokes after it reuse that
   * listing. A listing that fails is logged and lists nothing.
   */
  private async mentions(id: number, partial: string, fresh: boolean): Promise<void> {
    if (fresh || !this.files) {
      this.files = listFiles();
    }
    let paths: string[] = [];
    try {
      paths = completePaths(partial, await this.files);
    } catch (e) {
      this.files = undefined;
      this.c.log.warn(`listing the workspace's files for @${partial}: ${e instanceof Error ? e.message : String(e)}`);
    }
    void this.view?.webview.postMessage({ type: 'mentions', id, paths });
  }

  private async send(runId: string | undefined, text: string): Promise<void> {
    if (text.trim() === '') {
      return;
    }
    if (runId) {
      const res = await this.c.execute<{ runId: string; turn: number }>('catbuddy.reply', { runId, input: text });
      this.c.log.info(`reply to ${runId} accepted: turn ${res?.turn ?? '?'}`);
      return;
    }
    // No run shown: a new question, about the current file when there is one.
    if (vscode.window.activeTextEditor) {
      await vscode.commands.executeCommand('catbuddy.ask', text);
    } else {
      const res = await this.c.execute<{ runId: string }>('catbuddy.run', { command: 'ask', input: text });
      if (res?.runId) {
        this.current = res.runId;
      }
    }
  }

  /** pick offers the runs from catbuddy.listRuns and shows the one chosen. */
  async pick(): Promise<void> {
    const list = await this.c.execute<StoredRun[]>('catbuddy.listRuns');
    if (!list || list.length === 0) {
      void vscode.window.showInformationMessage('cb-ls: no agent runs yet in this workspace');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((r) => ({
        label: r.title,
        description: `${r.outcome} · ${r.turns} turn${r.turns === 1 ? '' : 's'} · ${r.runId}`,
        detail: [r.files.length > 0 ? r.files.join(', ') : 'no files changed', `${r.tokens.inputTokens + r.tokens.outputTokens} tokens`, new Date(r.updated).toLocaleString()].join(' · '),
        run: r,
      })),
      { placeHolder: 'Open an agent run in the chat (it can be continued)', matchOnDescription: true, matchOnDetail: true },
    );
    if (!pick) {
      return;
    }
    const r = pick.run;
    this.titles.set(r.runId, r.title);
    if (!this.events.has(r.runId) && r.transcriptUri && !this.histories.has(r.runId)) {
      // Not seen by this window: its transcript so far is the history.
      try {
        const bytes = await vscode.workspace.fs.readFile(vscode.Uri.parse(r.transcriptUri));
        this.histories.set(r.runId, new TextDecoder().decode(bytes));
      } catch (e) {
        this.c.log.warn(`transcript of ${r.runId}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.current = r.runId;
    await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
    this.post();
  }

  private async openDiff(runId?: string, callId?: string): Promise<void> {
    const ev = (runId ? this.events.get(runId) : undefined)?.find((e) => e.kind === 'tool_result' && e.callId === callId && e.edit);
    if (!ev?.edit) {
      return;
    }
    if (ev.edit.diff) {
      const doc = await vscode.workspace.openTextDocument({ content: ev.edit.diff, language: 'diff' });
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Active });
    } else {
      await vscode.window.showTextDocument(vscode.Uri.parse(ev.edit.uri), { preview: true });
    }
  }

  private fail(e: unknown): void {
    reportFailure(this.c.log, vscode.window, 'chat', e);
  }

  private html(webview: vscode.Webview): string {
    const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const css = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'chat.css'));
    const js = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'out', 'webview', 'chat.js'));
    // Strict: no inline script or style, nothing from the network.
    const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}'; img-src ${webview.cspSource} data:; font-src ${webview.cspSource};`;
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>Catbuddy</title>
</head>
<body>
<header>
  <span id="title" role="heading" aria-level="2">New conversation</span>
  <button id="stop" class="primary" hidden title="Cancel the run (catbuddy.cancel)">Stop</button>
  <button id="runs" title="Open an earlier run (catbuddy.listRuns)">Runs…</button>
  <button id="new" title="Start a new conversation">New</button>
</header>
<main id="log" role="log" aria-live="polite" tabindex="0"></main>
<footer>
  <div id="tokens" aria-live="polite"></div>
  <ul id="mentions" role="listbox" aria-label="Workspace files" hidden></ul>
  <div class="compose">
    <textarea id="input" rows="2" aria-label="Message to the agent (@ adds a file)" aria-autocomplete="list" aria-controls="mentions"></textarea>
    <button id="send" class="primary" title="Send (Enter)">Send</button>
  </div>
</footer>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
