// The extension's commands. Each builds the server's catbuddy.run argument
// from the editor (or forwards the one a code action carries) and returns
// once the server has accepted the run; the run itself reports through
// progress, catbuddy/runEvent and the edits it proposes.

import * as vscode from 'vscode';
import { Controller, SECRET_KEY } from './controller';
import { diagnosticsIn, targetRange, toLsp } from './diagnostics';
import { mentionInput } from './mentionInput';
import { reportFailure } from './refusal';
import { customCommands, needsInput, pickItems, RunArgs, serverArgs } from './runArgs';
import { ServerStatus, statusLines } from './status';

type Handler = (...args: unknown[]) => unknown;

/** registerCommands registers every command contributed in package.json. */
export function registerCommands(c: Controller): vscode.Disposable[] {
  const guard = (name: string, f: Handler): Handler => async (...args) => {
    try {
      return await f(...args);
    } catch (e) {
      reportFailure(c.log, c.runs.server !== 'missing' ? vscode.window : undefined, name, e);
      return undefined;
    }
  };
  const cmds: Record<string, Handler> = {
    'catbuddy.fix': (arg) => runFromEditorOrArg(c, 'fix', arg),
    'catbuddy.explain': (arg) => runFromEditorOrArg(c, 'explain', arg),
    'catbuddy.ask': async (arg) => {
      const input = typeof arg === 'string' ? arg : await askInput('Ask the agent about the selection or the current line');
      return input === undefined ? undefined : runFromEditor(c, 'ask', input);
    },
    'catbuddy.runCustom': (arg) => runCustom(c, arg),
    'catbuddy.cancel': (arg) => cancel(c, arg),
    'catbuddy.showTranscript': (arg) => showTranscript(c, arg),
    'catbuddy.undoLastRun': (arg) => undoRun(c, arg),
    'catbuddy.setApiKey': () => setApiKey(c),
    'catbuddy.restartServer': () => c.restart(),
    'catbuddy.showLog': () => c.log.show(),
    'catbuddy.showStatus': () => showStatus(c),
    // The server asks (a modal dialog naming each server and setting) before it trusts.
    'catbuddy.trustProject': () => trustProject(c, 'catbuddy.trustProject'),
    'catbuddy.untrustProject': () => trustProject(c, 'catbuddy.untrustProject'),
  };
  return Object.entries(cmds).map(([id, f]) => vscode.commands.registerCommand(id, guard(id, f)));
}

/** showStatus writes what the server runs (catbuddy.status) to the log and shows its first line. */
async function showStatus(c: Controller) {
  const lines = statusLines(await c.execute<ServerStatus>('catbuddy.status'));
  lines.forEach((l) => c.log.info(l));
  const choice = await vscode.window.showInformationMessage(lines.map((l) => l.trim()).join(' · '), 'Show Log');
  if (choice === 'Show Log') {
    c.log.show();
  }
}

/** askInput asks for a run's input, completing workspace paths after "@"; undefined means no run. */
function askInput(prompt: string): Promise<string | undefined> {
  return mentionInput(prompt, 'e.g. why does this loop never end?');
}

async function start(c: Controller, args: RunArgs): Promise<{ runId: string } | undefined> {
  const res = await c.execute<{ runId: string }>('catbuddy.run', args);
  c.log.info(`run ${res?.runId ?? '?'} accepted: ${args.command} ${args.uri}:${args.range.start.line + 1}`);
  if (res?.runId) {
    c.revealRun?.(res.runId);
  }
  return res;
}

function runFromEditorOrArg(c: Controller, command: string, arg: unknown) {
  const fromServer = serverArgs(arg);
  if (fromServer) {
    // A code action from the server: its range and diagnostics are already right.
    return start(c, { ...fromServer, command: fromServer.command ?? command });
  }
  return runFromEditor(c, command, typeof arg === 'string' ? arg : undefined);
}

function runFromEditor(c: Controller, command: string, input?: string) {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    throw new Error('open a file and select the code for the agent first');
  }
  const doc = editor.document;
  // Every source's diagnostics (compilers, linters, other servers), not only cb-ls's.
  const all = vscode.languages.getDiagnostics(doc.uri);
  const range = targetRange(editor.selection, (l) => (l < doc.lineCount ? doc.lineAt(l).text.length : 0), all);
  const args: RunArgs = { command, uri: c.asUri(doc.uri), range };
  const diagnostics = diagnosticsIn(range, all).map(toLsp);
  if (diagnostics.length > 0) {
    args.diagnostics = diagnostics;
  }
  if (input !== undefined) {
    args.input = input;
  }
  return start(c, args);
}

async function runCustom(c: Controller, arg: unknown) {
  if (serverArgs(arg)) {
    return runFromEditorOrArg(c, 'fix', arg);
  }
  const custom = customCommands(c.settings().config.customCommands);
  let server: { id: string; title: string }[] | undefined;
  try {
    server = await c.execute<{ id: string; title: string }[]>('catbuddy.listCommands');
  } catch (e) {
    c.log.warn(`catbuddy.listCommands: ${e instanceof Error ? e.message : String(e)}; using the settings`);
  }
  const items = pickItems(server, custom);
  let id = typeof arg === 'string' ? arg : undefined;
  if (id === undefined) {
    const pick = await vscode.window.showQuickPick(
      items.map((i) => ({ label: i.title, description: i.custom ? i.id : 'built-in', id: i.id })),
      { placeHolder: 'Run an agent command on the selection' },
    );
    if (!pick) {
      return undefined;
    }
    id = pick.id;
  }
  const item = items.find((i) => i.id === id);
  if (!item) {
    throw new Error(`no agent command "${id}" (see catbuddy.customCommands)`);
  }
  let input: string | undefined;
  if (needsInput(item.id, item.prompt)) {
    input = await askInput(item.title);
    if (input === undefined) {
      return undefined;
    }
  }
  return runFromEditor(c, item.id, input);
}

async function cancel(c: Controller, arg: unknown) {
  let runId = typeof (arg as { runId?: unknown })?.runId === 'string' ? (arg as { runId: string }).runId : undefined;
  const ids = c.runs.ids();
  if (runId === undefined && ids.length > 1) {
    const pick = await vscode.window.showQuickPick([{ label: 'All runs', id: undefined as string | undefined }, ...ids.map((id) => ({ label: id, id }))], {
      placeHolder: 'Cancel which agent run?',
    });
    if (!pick) {
      return undefined;
    }
    runId = pick.id;
  }
  const res = await c.execute<{ cancelled: number }>('catbuddy.cancel', runId === undefined ? {} : { runId });
  if (!res?.cancelled) {
    void vscode.window.showInformationMessage('cb-ls: no agent run in progress');
  }
  return res;
}

async function showTranscript(c: Controller, arg: unknown) {
  const runId = typeof (arg as { runId?: unknown })?.runId === 'string' ? (arg as { runId: string }).runId : undefined;
  const res = await c.execute<{ uri: string }>('catbuddy.transcript', runId === undefined ? {} : { runId });
  if (!res?.uri) {
    throw new Error('no transcript yet: run an agent command first');
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(res.uri));
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  return res;
}

/**
 * undoRun asks the server to put back every file a run changed (the last run
 * unless arg names one): one workspace edit, reviewed in the Refactor Preview
 * like any other, then the server's account is shown.
 */
async function undoRun(c: Controller, arg: unknown) {
  const runId = typeof (arg as { runId?: unknown })?.runId === 'string' ? (arg as { runId: string }).runId : undefined;
  const res = await c.execute<{ undone: boolean; message: string }>('catbuddy.undoRun', runId === undefined ? {} : { runId });
  c.log.info(`undo ${runId ?? 'last run'}: ${res?.message ?? '?'}`);
  if (res?.message) {
    const show = res.undone ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`cb-ls: ${res.message}`);
  }
  return res;
}

async function setApiKey(c: Controller) {
  const provider = c.settings().config.provider ?? 'the provider';
  const key = await vscode.window.showInputBox({
    prompt: `API key for ${provider} (kept in VS Code's secret storage; leave empty to remove it)`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return;
  }
  if (key.trim() === '') {
    await c.ctx.secrets.delete(SECRET_KEY);
    // A restart is the only way to make the server forget a key it was given.
    await c.restart();
    void vscode.window.showInformationMessage('cb-ls: API key removed');
    return;
  }
  await c.ctx.secrets.store(SECRET_KEY, key.trim());
  await c.pushConfig();
  void vscode.window.showInformationMessage('cb-ls: API key saved');
}

async function trustProject(c: Controller, command: string): Promise<void> {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const res = await c.execute<{ root: string; trusted: boolean }>(command, uri ? { uri: c.asUri(uri) } : {});
  c.log.info(`${command}: ${res.root} is ${res.trusted ? 'trusted' : 'not trusted'}`);
  void vscode.window.showInformationMessage(`cb-ls: ${res.root} is ${res.trusted ? 'trusted' : 'not trusted'}.`);
}
