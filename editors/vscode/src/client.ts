// The language client for cb-ls: vscode-languageclient, adjusted where its
// defaults would hide or bypass what the server asks of the user.
//
// 1. Command ids. The server lists its commands (catbuddy.run, catbuddy.fix,
//    catbuddy.cancel, catbuddy.trustProject, …) in executeCommandProvider,
//    and vscode-languageclient registers each as a VS Code command. The ids
//    this extension contributes in package.json (catbuddy.fix,
//    catbuddy.cancel, catbuddy.trustProject, catbuddy.untrustProject among
//    the server's) are its own commands, and registering them twice would
//    fail with "command already exists", so skipOwnCommands leaves them out.
//    The extension's catbuddy.fix starts the run with catbuddy.run, passing a
//    code action's server-shaped argument as it is; every other server
//    command (catbuddy.run from code actions, catbuddy.transcript, …) is
//    registered by the client as usual.
// 2. Progress. The built-in progress feature (the status bar) is replaced
//    by NotificationProgressFeature: a notification with a Cancel button.
// 3. Questions. window/showMessageRequest is a modal dialog, not a toast
//    (messageRequest.ts); a dismissed one answers null.
// 4. Run ends. The client declares the experimental capability
//    catbuddy.runEnd: the extension shows each run's outcome itself (one
//    notification, the transcript on request), so the server sends no
//    showMessage or showDocument at a run's end.
// 5. The server's log. Its stderr goes to the output channel at each line's
//    own slog level (serverLog.ts), not all of it at error level.
// 6. The editor's language servers. The client declares
//    catbuddy.languageFeatures and answers catbuddy/languageFeature through
//    VS Code's providers (languageFeatures.ts); it declares
//    catbuddy.formatText and formats the text of a change before review
//    with VS Code's formatter, in a scratch document (formatText.ts).
// 7. Settings. workspace/configuration for section "catbuddy" answers the
//    extension's mapped settings for the scope asked (serverSettings, no
//    secrets), not the raw settings.json object.
// 8. Edits. workspace/applyEdit goes through review.ts, which checks the
//    edit against the open documents' versions before applying it, and
//    saves them after it when catbuddy.saveAfterApply is on.
// 9. Transcripts. A showDocument without takeFocus opens beside the code as
//    a preview tab, keeping the code visible and focused.
// 10. Completions. vscode-languageclient's built-in inline completion
//    feature asks cb-ls for ghost text; inlineCompletion.ts keeps it from
//    asking while the user turned completions off in VS Code.
//
// Documents of any language are synced, saved files and untitled ones.

import * as vscode from 'vscode';
import {
  DynamicFeature,
  ExecuteCommandRegistrationOptions,
  LanguageClient,
  LanguageClientOptions,
  RegistrationData,
  ServerOptions,
  StaticFeature,
  TransportKind,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import { ServerConfig } from './config';
import { NotificationProgressFeature } from './progress';
import { registerLanguageFeatures } from './languageFeatures';
import { closedScratch, isScratch, registerFormatText } from './formatText';
import { registerMessageRequest } from './messageRequest';
import { askCompletions } from './inlineCompletion';
import { handleApplyEdit } from './review';
import { pipeServerLog } from './serverLog';

/** runEndCapability tells cb-ls that this client shows run ends itself, and
 * pending changes (pending.ts): runs never stop for a Refactor Preview. */
const runEndCapability: StaticFeature = {
  fillClientCapabilities(caps) {
    const exp = (caps.experimental ?? {}) as Record<string, unknown>;
    caps.experimental = { ...exp, catbuddy: { ...((exp.catbuddy as object) ?? {}), runEnd: true, pendingChanges: true } };
  },
  getState: () => ({ kind: 'static' }),
  initialize() {},
  clear() {},
};

/** CatbuddyClient is a LanguageClient whose server progress shows as a cancellable notification. */
export class CatbuddyClient extends LanguageClient {
  // Called from the base constructor (registerBuiltinFeatures), before any
  // field of this class exists: it must not use instance state.
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if (isProgressFeature(feature)) {
      super.registerFeature(new NotificationProgressFeature(this));
      return;
    }
    super.registerFeature(feature);
  }
}

function isProgressFeature(feature: StaticFeature | DynamicFeature<unknown>): boolean {
  try {
    const state = feature.getState();
    return state.kind === 'window' && state.id === WorkDoneProgressCreateRequest.method;
  } catch {
    return false; // a feature that cannot report its state before start is not the progress feature
  }
}

/** skipOwnCommands keeps the client from registering server command ids the extension owns. */
export function skipOwnCommands(client: LanguageClient, own: ReadonlySet<string>): void {
  const feature = client.getFeature('workspace/executeCommand') as DynamicFeature<ExecuteCommandRegistrationOptions> | undefined;
  if (!feature) {
    throw new Error('vscode-languageclient has no workspace/executeCommand feature');
  }
  const register = feature.register.bind(feature);
  feature.register = (data: RegistrationData<ExecuteCommandRegistrationOptions>) =>
    register({
      ...data,
      registerOptions: { ...data.registerOptions, commands: data.registerOptions.commands.filter((c) => !own.has(c)) },
    });
}

/** ClientParams are what createClient needs from the extension. */
export interface ClientParams {
  serverPath: string;
  initializationOptions: ServerConfig;
  /** serverSettings answers workspace/configuration for section "catbuddy" (no secrets). */
  serverSettings: (scopeUri?: string) => ServerConfig;
  saveAfterApply: () => boolean;
  /** inlineCompletionEnabled is catbuddy.inlineCompletion.enabled as the user set it, undefined while unset. */
  inlineCompletionEnabled: () => boolean | undefined;
  ownCommands: ReadonlySet<string>;
  log: vscode.LogOutputChannel;
}

/** createClient builds (but does not start) the client for `cb-ls serve`. */
export function createClient(p: ClientParams): CatbuddyClient {
  const server: ServerOptions = { command: p.serverPath, args: ['serve'], transport: TransportKind.stdio };
  const askInline = askCompletions({ enabled: p.inlineCompletionEnabled, skip: isScratch });
  const options: LanguageClientOptions = {
    // cb-ls works on any file of the project, whatever its language.
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: p.initializationOptions,
    outputChannel: p.log,
    stdioOptions: {
      stdout: () => {}, // the LSP stream itself; never read here
      stderr: (input, channel) => pipeServerLog(input, channel),
    },
    // The server pulls settings with workspace/configuration; it gets the
    // mapped, validated values rather than the raw settings.json object.
    middleware: {
      // The scratch documents of catbuddy/formatText are cb-ls's own
      // request, not the user's: cb-ls is not told of them.
      didOpen: (doc, next) => (isScratch(doc) ? Promise.resolve() : next(doc)),
      didChange: (e, next) => (isScratch(e.document) ? Promise.resolve() : next(e)),
      didClose: (doc, next) => (closedScratch(doc) ? Promise.resolve() : next(doc)),
      provideInlineCompletionItems: (doc, position, context, token, next) =>
        askInline(doc) ? next(doc, position, context, token) : undefined,
      workspace: {
        configuration: async (params, token, next) => {
          const raw = await next(params, token);
          return Array.isArray(raw) ? raw.map((v, i) => (params.items[i]?.section === 'catbuddy' ? p.serverSettings(params.items[i].scopeUri) : v)) : raw;
        },
        handleApplyEdit: handleApplyEdit({ saveAfterApply: p.saveAfterApply, log: p.log }),
      },
      window: {
        // The server shows each run's transcript with takeFocus:false. The
        // default handler opens it in the active editor group, in place of
        // the code the user is working on; beside it, as a preview tab, the
        // code stays visible and focused and the next transcript reuses the tab.
        showDocument: async (params, token, next) => {
          if (params.external === true || params.takeFocus === true) {
            return next(params, token);
          }
          try {
            const uri = vscode.Uri.parse(params.uri);
            const r = params.selection;
            await vscode.window.showTextDocument(uri, {
              viewColumn: vscode.ViewColumn.Beside,
              preserveFocus: true,
              preview: true,
              selection: r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : undefined,
            });
            return { success: true };
          } catch (e) {
            p.log.warn(`showDocument ${params.uri}: ${e instanceof Error ? e.message : String(e)}`);
            return { success: false };
          }
        },
      },
    },
  };
  const client = new CatbuddyClient('catbuddy', 'cb-ls', server, options);
  skipOwnCommands(client, p.ownCommands);
  client.registerFeature(runEndCapability);
  registerLanguageFeatures(client);
  registerFormatText(client);
  registerMessageRequest({ onRequest: (method, handler) => client.onRequest(method, handler) }, vscode.window, p.log);
  return client;
}
