// Extension entry point: cb-ls, a coding agent that works through the editor.
// See docs/vscode.md for what each piece does and why.

import * as vscode from 'vscode';
import { CHAT_VIEW, ChatView } from './chatView';
import { registerCommands } from './commands';
import { PendingView } from './pending';
import { Controller } from './controller';
import { statusBar } from './statusBar';

let controller: Controller | undefined;

/** activate starts cb-ls for the window and registers the commands. */
export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('cb-ls', { log: true });
  const contributed = (ctx.extension.packageJSON?.contributes?.commands ?? []) as { command: string }[];
  const c = new Controller(ctx, log, new Set(contributed.map((x) => x.command)));
  controller = c;
  const chat = new ChatView(c, ctx.extensionUri);
  const pending = new PendingView((command, arg) => c.execute(command, arg), (u) => c.asUri(u), log);
  // Each run's chat message shows its pending count, redrawn on every update.
  chat.pendingOf = (runId) => pending.model.summary(runId);
  c.onPending = (n) => (n.runId === '' ? pending.clear() : pending.update(n));
  c.pendingFiles = (runId) => pending.model.files(runId).length;
  // The Pending Changes view names a run by its command's title.
  const titles = c.onAnyRunEvent((ev) => ev.kind === 'start' && ev.title && pending.model.setTitle(ev.runId, ev.title));
  const counts = pending.onDidUpdate(() => chat.pendingChanged());
  c.revealRun = (runId) => void chat.reveal(runId);
  c.showRun = (runId) => chat.show(runId);
  c.chatShows = (runId) => chat.shows(runId);
  ctx.subscriptions.push(
    log,
    c,
    statusBar(c),
    ...registerCommands(c),
    chat,
    pending,
    titles,
    counts,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand('catbuddy.showChat', () => chat.focus()),
    vscode.commands.registerCommand('catbuddy.pickRun', () => chat.pick()),
  );
  ctx.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('catbuddy.serverPath') && c.serverPathChanged()) {
        void c.restart();
      } else if (e.affectsConfiguration('catbuddy')) {
        if (e.affectsConfiguration('catbuddy.revealChat')) {
          // The extension's own setting: the server never sees it, so the log says it took effect.
          log.info(`catbuddy.revealChat: ${vscode.workspace.getConfiguration('catbuddy').get<boolean>('revealChat', true)}`);
        }
        const pushed = c.pushConfig();
        if (e.affectsConfiguration('catbuddy.inlineCompletion')) {
          // Said once the server has it: completions from here on follow it.
          const on = vscode.workspace.getConfiguration('catbuddy').inspect<boolean>('inlineCompletion.enabled')?.globalValue;
          void pushed.then(() => log.info(`catbuddy.inlineCompletion.enabled: ${on ?? "unset (cb-ls's config.json decides)"}`));
        }
      }
    }),
    ctx.secrets.onDidChange((e) => {
      // Another window changed the key: keep this window's server in step.
      if (e.key === 'catbuddy.apiKey') {
        void c.pushConfig();
      }
    }),
  );
  await c.start();
}

/** deactivate stops the server. */
export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
