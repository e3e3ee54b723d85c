// The editor's other language servers as the agent's tools: the client side
// of catbuddy/languageFeature (docs/PROTOCOL.md). The client lists the LSP
// methods it answers in experimental.catbuddy.languageFeatures; cb-ls asks
// with {method, params} and gets that method's LSP result, answered by
// VS Code's own language feature commands (vscode.executeDefinitionProvider
// and the others), that is by every extension's providers merged: the
// built-in TypeScript support, gopls through vscode-go, Pylance… cb-ls
// itself offers only code actions, and its own are left out.

import * as vscode from 'vscode';
import { ResponseError, StaticFeature } from 'vscode-languageclient/node';
import { SourceDiagnostic, toLsp } from './diagnostics';
import * as convert from './languageFeatureConvert';

/** METHODS are the LSP methods this client answers through catbuddy/languageFeature. */
export const METHODS = [
  'textDocument/definition',
  'textDocument/typeDefinition',
  'textDocument/implementation',
  'textDocument/references',
  'textDocument/hover',
  'textDocument/documentSymbol',
  'workspace/symbol',
  'textDocument/prepareCallHierarchy',
  'callHierarchy/incomingCalls',
  'callHierarchy/outgoingCalls',
  'textDocument/prepareRename',
  'textDocument/rename',
  'textDocument/codeAction',
  'textDocument/formatting',
] as const;

/** languageFeaturesCapability adds experimental.catbuddy.languageFeatures to initialize. */
export const languageFeaturesCapability: StaticFeature = {
  fillClientCapabilities(caps) {
    const exp = (caps.experimental ?? {}) as Record<string, unknown>;
    caps.experimental = { ...exp, catbuddy: { ...((exp.catbuddy as object) ?? {}), languageFeatures: [...METHODS] } };
  },
  getState: () => ({ kind: 'static' }),
  initialize() {},
  clear() {},
};

/** Request is the params of catbuddy/languageFeature. */
interface Request {
  method?: unknown;
  params?: Record<string, any>;
}

// InvalidParams: the request itself is wrong, so the tool reports it as such.
const INVALID_PARAMS = -32602;
const REQUEST_CANCELLED = -32800;

function bad(msg: string): ResponseError<void> {
  return new ResponseError(INVALID_PARAMS, `catbuddy/languageFeature: ${msg}`);
}

const pos = (p: { line: number; character: number } | undefined): vscode.Position => {
  if (!p || typeof p.line !== 'number' || typeof p.character !== 'number') {
    throw bad('missing position');
  }
  return new vscode.Position(p.line, p.character);
};

const docUri = (params: Record<string, any>): vscode.Uri => {
  const u = params?.textDocument?.uri;
  if (typeof u !== 'string') {
    throw bad('missing textDocument.uri');
  }
  return vscode.Uri.parse(u);
};

const rng = (r: convert.Range | undefined): vscode.Range => {
  if (!r) {
    throw bad('missing range');
  }
  return new vscode.Range(pos(r.start), pos(r.end));
};

/** ITEMS_KEPT bounds the call hierarchy items kept for later incoming/outgoing calls. */
const ITEMS_KEPT = 500;

/** RESOLVE_ACTIONS is how many code actions VS Code resolves, so that their edits come along. */
const RESOLVE_ACTIONS = 25;

/** LanguageFeatures answers catbuddy/languageFeature through VS Code's commands. */
export class LanguageFeatures {
  // VS Code computes the calls of a call hierarchy item only for the item
  // object it returned (it carries VS Code's session), so items go to cb-ls
  // with a key in data and come back by it.
  private readonly items = new Map<string, vscode.CallHierarchyItem>();
  private next = 0;

  /** run executes a VS Code command and openDocument opens one; tests of the class may pass their own. */
  constructor(
    private readonly run: <T>(command: string, ...args: unknown[]) => Thenable<T> = (command, ...args) => vscode.commands.executeCommand(command, ...args),
    private readonly openDocument: (uri: vscode.Uri) => Thenable<unknown> = (uri) => vscode.workspace.openTextDocument(uri),
  ) {}

  private keep(it: vscode.CallHierarchyItem): convert.LspCallHierarchyItem {
    const key = `vscode-${++this.next}`;
    this.items.set(key, it);
    if (this.items.size > ITEMS_KEPT) {
      this.items.delete(this.items.keys().next().value as string);
    }
    return convert.callHierarchyItem(it, { catbuddyItem: key });
  }

  private item(params: Record<string, any>): vscode.CallHierarchyItem {
    const key = params?.item?.data?.catbuddyItem;
    const it = typeof key === 'string' ? this.items.get(key) : undefined;
    if (!it) {
      throw bad('unknown call hierarchy item: ask textDocument/prepareCallHierarchy for it again');
    }
    return it;
  }

  /** open makes sure VS Code has a model for uri, opening the file in the background. */
  private async open(uri: vscode.Uri): Promise<void> {
    try {
      await this.openDocument(uri);
    } catch (e) {
      throw new ResponseError(INVALID_PARAMS, `catbuddy/languageFeature: cannot open ${uri.toString()}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /**
   * answer returns the LSP result of req.method over VS Code's providers.
   * VS Code's commands cannot be cancelled; a cancelled request is answered
   * at once with RequestCancelled and their late result dropped.
   */
  answer(req: Request, token?: vscode.CancellationToken): Promise<unknown> {
    const work = this.compute(req);
    if (!token) {
      return work;
    }
    return new Promise((resolve, reject) => {
      const sub = token.onCancellationRequested(() => reject(new ResponseError(REQUEST_CANCELLED, 'catbuddy/languageFeature: cancelled')));
      work.then(resolve, reject).finally(() => sub.dispose());
    });
  }

  private async compute(req: Request): Promise<unknown> {
    const method = req?.method;
    const p = req?.params ?? {};
    if (typeof method === 'string' && method.startsWith('textDocument/')) {
      // The document is opened (not shown) first. VS Code's commands open a
      // closed one themselves, but the rename command then loses its new
      // name on the way ("Unexpected type", VS Code 1.100), and a language
      // server answers best about a document it has been given.
      await this.open(docUri(p));
    }
    switch (method) {
      case 'textDocument/definition':
        return convert.locations(await this.run('vscode.executeDefinitionProvider', docUri(p), pos(p.position)));
      case 'textDocument/typeDefinition':
        return convert.locations(await this.run('vscode.executeTypeDefinitionProvider', docUri(p), pos(p.position)));
      case 'textDocument/implementation':
        return convert.locations(await this.run('vscode.executeImplementationProvider', docUri(p), pos(p.position)));
      case 'textDocument/references': {
        const refs = convert.locations(await this.run('vscode.executeReferenceProvider', docUri(p), pos(p.position)));
        if (p.context?.includeDeclaration === false) {
          // VS Code's command always includes the declaration: leave out the definitions' locations.
          const defs = convert.locations(await this.run('vscode.executeDefinitionProvider', docUri(p), pos(p.position)));
          const same = (a: convert.LspLocation, b: convert.LspLocation) =>
            a.uri === b.uri && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character;
          return refs.filter((r) => !defs.some((d) => same(r, d)));
        }
        return refs;
      }
      case 'textDocument/hover':
        return convert.hover(await this.run('vscode.executeHoverProvider', docUri(p), pos(p.position)));
      case 'textDocument/documentSymbol':
        return convert.documentSymbols(await this.run('vscode.executeDocumentSymbolProvider', docUri(p)));
      case 'workspace/symbol': {
        if (typeof p.query !== 'string') {
          throw bad('missing query');
        }
        const found = await this.run<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', p.query);
        return (found ?? []).map(convert.symbolInformation);
      }
      case 'textDocument/prepareCallHierarchy': {
        const items = await this.run<vscode.CallHierarchyItem[] | undefined>('vscode.prepareCallHierarchy', docUri(p), pos(p.position));
        return (items ?? []).map((it) => this.keep(it));
      }
      case 'callHierarchy/incomingCalls': {
        const calls = await this.run<vscode.CallHierarchyIncomingCall[] | undefined>('vscode.provideIncomingCalls', this.item(p));
        return (calls ?? []).map((c) => ({ from: this.keep(c.from), fromRanges: c.fromRanges.map(convert.range) }));
      }
      case 'callHierarchy/outgoingCalls': {
        const calls = await this.run<vscode.CallHierarchyOutgoingCall[] | undefined>('vscode.provideOutgoingCalls', this.item(p));
        return (calls ?? []).map((c) => ({ to: this.keep(c.to), fromRanges: c.fromRanges.map(convert.range) }));
      }
      case 'textDocument/prepareRename': {
        // VS Code's command throws with the provider's reason ("You cannot rename this element.").
        const r = await this.run<{ range: vscode.Range; placeholder: string } | undefined>('vscode.prepareRename', docUri(p), pos(p.position));
        return r ? { range: convert.range(r.range), placeholder: r.placeholder } : null;
      }
      case 'textDocument/rename': {
        if (typeof p.newName !== 'string') {
          throw bad('missing newName');
        }
        const edit = await this.run<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', docUri(p), pos(p.position), p.newName);
        return edit ? convert.workspaceEdit(edit.entries()) : null;
      }
      case 'textDocument/codeAction': {
        const only: string[] | undefined = Array.isArray(p.context?.only) ? p.context.only : undefined;
        const actions = await this.run<(vscode.CodeAction | vscode.Command)[] | undefined>(
          'vscode.executeCodeActionProvider',
          docUri(p),
          rng(p.range),
          only?.length === 1 ? only[0] : undefined,
          RESOLVE_ACTIONS,
        );
        return convert.codeActions(actions, only, (d) => toLsp(d as SourceDiagnostic));
      }
      case 'textDocument/formatting': {
        const options = p.options ?? { tabSize: 4, insertSpaces: true };
        return convert.textEdits(await this.run('vscode.executeFormatDocumentProvider', docUri(p), options));
      }
      default:
        throw bad(`unsupported method ${JSON.stringify(method)} (this client answers ${METHODS.join(', ')})`);
    }
  }
}

/** registerLanguageFeatures declares the capability on client and answers its requests. */
export function registerLanguageFeatures(client: {
  registerFeature(f: StaticFeature): void;
  onRequest(method: string, handler: (params: Request, token: vscode.CancellationToken) => Promise<unknown>): unknown;
}): void {
  const features = new LanguageFeatures();
  client.registerFeature(languageFeaturesCapability);
  client.onRequest('catbuddy/languageFeature', (params, token) => features.answer(params, token));
}
