// Controller owns the language client's life cycle (start, restart, stop),
// the configuration it is given, and the run state fed by the server's
// catbuddy/runEvent notifications.

import * as vscode from 'vscode';
import { DidChangeConfigurationNotification, ExecuteCommandRequest, State } from 'vscode-languageclient/node';
import { CatbuddyClient, createClient } from './client';
import { clearedKeys, ignoredMessage, Mapped, serverConfig, ServerConfig, userSettings, withApiKey } from './config';
import { DiagnosticsAnswerer } from './diagnosticsRequest';
import { ChangedFile, keptMessage } from './filesChanged';
import { endMessage, EndMessage, RunEvent, Runs } from './runs';
import { PendingNotification } from './pendingModel';
import { README, resolveServer } from './serverPath';

/** SECRET_KEY is the SecretStorage key of the provider API key. */
export const SECRET_KEY = 'catbuddy.apiKey';

/** FileEdit is a catbuddy/fileEdit notification. */
interface FileEdit {
  uri: string;
  phase: 'writing' | 'done' | 'error';
  added?: number;
  removed?: number;
  message?: string;
}

/** Controller runs one cb-ls server for the window. */
export class Controller implements vscode.Disposable {
  client?: CatbuddyClient;
  readonly runs = new Runs();
  private readonly changed = new vscode.EventEmitter<void>();
  /** diagnostics answers catbuddy/diagnostics; it tracks changes for the whole window's life. */
  private readonly diagnostics = new DiagnosticsAnswerer();
  /** onDidChange fires when the status (server state or runs) changes. */
  readonly onDidChange = this.changed.event;
  private readonly runEvents = new vscode.EventEmitter<RunEvent>();
  /** onAnyRunEvent fires for every catbuddy/runEvent (the chat view draws them). */
  readonly onAnyRunEvent = this.runEvents.event;
  /** revealRun, when set, shows a run the user just started (the chat view). */
  revealRun?: (runId: string) => void;
  /** showRun, when set, opens the chat view on a run (the Show button of its end notification). */
  showRun?: (runId: string) => Promise<void>;
  /** chatShows, when set, tells whether the chat view is visible with runId in it. */
  chatShows?: (runId: string) => boolean;
  private starting?: Promise<void>;
  /** onPending, when set, receives catbuddy/pendingChanges (the PendingView). */
  onPending?: (n: PendingNotification) => void;
  /** pendingFiles, when set, tells how many files of a run are pending. */
  pendingFiles?: (runId: string) => number;

  constructor(
    readonly ctx: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly ownCommands: ReadonlySet<string>,
  ) {}

  /** settings is the "catbuddy" configuration (for a resource, in multi-root workspaces) mapped for the server. */
  settings(scope?: vscode.Uri): Mapped {
    return serverConfig(this.read(scope));
  }

  /** warned holds the ignored workspace values already logged, so each is said once. */
  private readonly warned = new Set<string>();

  /**
   * read is a getter over the "catbuddy" settings in which the user-only
   * ones (config.ts USER_ONLY) come from the user's settings alone; a
   * workspace or folder value of one of them is logged once and ignored.
   */
  private read(scope?: vscode.Uri): (key: string) => unknown {
    const c = vscode.workspace.getConfiguration('catbuddy', scope);
    const { get, ignored } = userSettings(
      (k) => c.get(k),
      (k) => c.inspect(k),
    );
    for (const i of ignored) {
      const id = `${i.where} ${i.key} ${JSON.stringify(i.value)}`;
      if (!this.warned.has(id)) {
        this.warned.add(id);
        this.log.warn(ignoredMessage(i));
      }
    }
    return get;
  }

  /** serverPath is the catbuddy.serverPath setting of the last start. */
  private serverPath: unknown;

  /**
   * serverPathChanged tells whether the user's catbuddy.serverPath differs
   * from the one the server was started with. VS Code reports a change of
   * the setting in a workspace's settings too, where it is ignored: that
   * must not restart the server.
   */
  serverPathChanged(): boolean {
    return this.read()('serverPath') !== this.serverPath;
  }

  /** sent is the configuration the server last received, to notice cleared settings. */
  private sent: ServerConfig = {};

  private apiKey(): Thenable<string | undefined> {
    return this.ctx.secrets.get(SECRET_KEY);
  }

  /** start starts the server unless it is running or starting. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.client?.isRunning()) {
      return;
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverPath = this.read()('serverPath');
    this.serverPath = serverPath;
    const found = resolveServer(typeof serverPath === 'string' ? serverPath : undefined, process.env, root);
    if ('error' in found) {
      this.setServer('missing', `${found.error}. Install cb-ls or set catbuddy.serverPath.`);
      this.log.error(`cannot start cb-ls: ${found.error}`);
      void this.explainMissing(found.error);
      return;
    }
    const { config, problems } = this.settings();
    problems.forEach((p) => this.log.warn(p));
    this.sent = config;
    const client = createClient({
      serverPath: found.path,
      initializationOptions: withApiKey(config, await this.apiKey()),
      serverSettings: (scope) => this.settings(scope ? vscode.Uri.parse(scope) : undefined).config,
      saveAfterApply: () => vscode.workspace.getConfiguration('catbuddy').get<boolean>('saveAfterApply', true),
      // The user's own value (a user setting: config.ts USER_ONLY), undefined while unset.
      inlineCompletionEnabled: () => vscode.workspace.getConfiguration('catbuddy').inspect<boolean>('inlineCompletion.enabled')?.globalValue,
      ownCommands: this.ownCommands,
      log: this.log,
    });
    this.client = client;
    client.onNotification('catbuddy/runEvent', (ev: RunEvent) => this.onRunEvent(ev));
    client.onNotification('catbuddy/pendingChanges', (n: PendingNotification) => this.onPending?.(n));
    client.onRequest('catbuddy/diagnostics', (p: { uri?: string; settle?: unknown }) => this.diagnostics.answer(p));
    client.onNotification('catbuddy/fileEdit', (ev: FileEdit) =>
      this.log.info(`fileEdit ${ev.phase} ${ev.uri} +${ev.added ?? 0} -${ev.removed ?? 0}${ev.message ? ': ' + ev.message : ''}`),
    );
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.setServer('running');
      } else if (e.newState === State.Stopped && this.client === client) {
        this.runs.clear();
        this.onPending?.({ runId: '', files: [] });
        this.setServer('stopped');
      }
    });
    this.setServer('starting');
    this.log.info(`starting ${found.path} serve`);
    try {
      await client.start();
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.setServer('failed', `cb-ls failed to start: ${msg}`);
      this.log.error(`cb-ls failed to start: ${msg}`);
    }
  }

  private async explainMissing(why: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(
      `cb-ls: the language server could not be started: ${why}. Install cb-ls (see the README) or set "catbuddy.serverPath".`,
      'Open README',
      'Open Settings',
    );
    if (pick === 'Open README') {
      void vscode.env.openExternal(vscode.Uri.parse(README));
    } else if (pick === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'catbuddy.serverPath');
    }
  }

  /** stop stops the server, if any. */
  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.runs.clear();
    if (c) {
      try {
        await c.dispose(5000);
      } catch (e) {
        this.log.warn(`stopping cb-ls: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.setServer('stopped');
  }

  /** restart starts a fresh server (a new serverPath, a removed API key). */
  async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  /**
   * pushConfig sends the current settings and API key with
   * workspace/didChangeConfiguration. A cleared setting cannot be sent (an
   * absent key means "no opinion" to the server), so it restarts the server
   * instead, unless a run is going on: then the change waits for a restart.
   */
  async pushConfig(): Promise<void> {
    const { config, problems } = this.settings();
    problems.forEach((p) => this.log.warn(p));
    const cleared = clearedKeys(this.sent, config);
    if (cleared.length > 0 && this.client?.isRunning()) {
      if (this.runs.ids().length === 0) {
        this.log.info(`settings cleared (${cleared.join(', ')}): restarting cb-ls`);
        await this.restart();
        return;
      }
      this.log.warn(`settings cleared (${cleared.join(', ')}) take effect when cb-ls restarts ("Agent: Restart Server")`);
    }
    this.sent = config;
    if (this.client?.isRunning()) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { catbuddy: withApiKey(config, await this.apiKey()) },
      });
    }
  }

  /** execute runs a server command; it fails with a readable error when there is no server. */
  async execute<T>(command: string, arg?: unknown): Promise<T> {
    if (!this.client?.isRunning()) {
      await this.start();
    }
    if (!this.client?.isRunning()) {
      throw new Error(this.runs.serverError ?? 'the cb-ls server is not running (see "Agent: Show Log")');
    }
    return this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] }) as Promise<T>;
  }

  /** asUri converts a document URI to the form the server knows it by. */
  asUri(uri: vscode.Uri): string {
    return this.client ? this.client.code2ProtocolConverter.asUri(uri) : uri.toString();
  }

  private onRunEvent(ev: RunEvent): void {
    if (ev.kind === 'tool_call' || ev.kind === 'start' || ev.kind === 'end') {
      this.log.info(`run ${ev.runId} ${ev.kind}${ev.tool ? ' ' + ev.tool : ''}${ev.outcome ? ' ' + ev.outcome : ''}${ev.error ? ': ' + ev.error : ''}`);
    }
    if (ev.kind === 'files_changed') {
      this.warnKeptEdits(ev);
    }
    const { ended } = this.runs.apply(ev);
    this.runEvents.fire(ev);
    this.emit();
    // A reply's turn, typed in the chat view the user is looking at, ends
    // there: a notification would say it twice. Failures are always said.
    // A run whose changes are pending ends with the one notification that
    // offers to review them, even in the chat view: nothing is on disk yet.
    // The server says how many files are pending (an older one does not:
    // then the Pending Changes view's count).
    const pending = !ended ? 0 : typeof ev.pending === 'number' ? ev.pending : (this.pendingFiles?.(ev.runId) ?? 0);
    if (ended && (pending > 0 || !((ev.turn ?? 1) > 1 && ended.outcome !== 'error' && this.chatShows?.(ev.runId)))) {
      void this.showEnd(endMessage(ended.title, ev, ended.changed.size, pending, ended), ev.runId);
    }
  }

  /** warnKeptEdits tells the user which documents with unsaved changes a
   * command changed on disk (filesChanged.ts); the others VS Code reloads. */
  private warnKeptEdits(ev: RunEvent): void {
    const files = (ev as RunEvent & { files?: ChangedFile[] }).files ?? [];
    const docs = vscode.workspace.textDocuments.map((d) => ({ uri: this.asUri(d.uri), isDirty: d.isDirty }));
    const msg = keptMessage(ev.command, files, docs);
    if (msg) {
      void vscode.window.showWarningMessage(msg);
    }
  }

  /** showEnd shows a run's one end notification and acts on its buttons. */
  private async showEnd(m: EndMessage, runId: string): Promise<void> {
    const show = m.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    const pick = await show(m.text, ...m.actions);
    if (pick === 'Show') {
      await this.showRun?.(runId);
    } else if (pick === 'Undo') {
      await vscode.commands.executeCommand('catbuddy.undoLastRun', { runId });
    } else if (pick === 'Review') {
      await vscode.commands.executeCommand('catbuddy.pending.focus');
    } else if (pick === 'Keep All') {
      await vscode.commands.executeCommand('catbuddy.keepAll', { runId });
    } else if (pick === 'Undo All') {
      await vscode.commands.executeCommand('catbuddy.undoAll', { runId });
    } else if (pick === 'Show Log') {
      this.log.show();
    } else if (pick === 'Open Transcript') {
      await vscode.commands.executeCommand('catbuddy.showTranscript', { runId });
    } else if (pick === 'Set API Key…') {
      await vscode.commands.executeCommand('catbuddy.setApiKey');
    }
  }

  private setServer(state: Runs['server'], error?: string): void {
    this.runs.server = state;
    this.runs.serverError = error;
    this.emit();
  }

  private emit(): void {
    // "catbuddy.running" is for users' keybinding "when" clauses (e.g. Escape to cancel).
    void vscode.commands.executeCommand('setContext', 'catbuddy.running', this.runs.ids().length > 0);
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
    this.diagnostics.dispose();
    this.runEvents.dispose();
    void this.stop();
  }
}
