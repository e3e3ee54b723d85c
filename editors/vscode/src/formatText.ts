// The client side of catbuddy/formatText (docs/PROTOCOL.md): cb-ls hands
// over the text a rename, code action or replace_symbol leaves in a file,
// before the user has kept it, and the extension formats it with VS Code's
// formatter for the language (every extension's formatting providers, as
// Format Document would), without touching the user's document: the text
// goes into an untitled document that is never shown, and is emptied
// afterwards so that VS Code forgets it without a save prompt.

import * as vscode from 'vscode';
import { ResponseError, StaticFeature } from 'vscode-languageclient/node';
import * as convert from './languageFeatureConvert';

/** formatTextCapability adds experimental.catbuddy.formatText to initialize. */
export const formatTextCapability: StaticFeature = {
  fillClientCapabilities(caps) {
    const exp = (caps.experimental ?? {}) as Record<string, unknown>;
    caps.experimental = { ...exp, catbuddy: { ...((exp.catbuddy as object) ?? {}), formatText: true } };
  },
  getState: () => ({ kind: 'static' }),
  initialize() {},
  clear() {},
};

/** FormatTextParams is the params of catbuddy/formatText. */
export interface FormatTextParams {
  uri?: unknown;
  text?: unknown;
  languageId?: unknown;
  options?: vscode.FormattingOptions;
}

const INVALID_PARAMS = -32602;

/** scratch holds the URIs of the untitled documents being formatted. */
const scratch = new Set<string>();
/** opening holds the texts of scratch documents being opened, whose URIs are not known yet. */
const opening: string[] = [];

/**
 * isScratch tells whether doc is a scratch document of formatText, kept
 * from cb-ls's document sync. VS Code announces a new document before
 * openTextDocument returns its URI, so one being opened is known by its text.
 */
export function isScratch(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'untitled') {
    return false;
  }
  if (scratch.has(doc.uri.toString())) {
    return true;
  }
  const i = opening.indexOf(doc.getText());
  if (i < 0) {
    return false;
  }
  opening.splice(i, 1);
  scratch.add(doc.uri.toString());
  return true;
}

/** languageOf is the language of the file at uri: its open document's, else VS Code's guess from loading it. */
async function languageOf(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) {
    return open.languageId;
  }
  return (await vscode.workspace.openTextDocument(uri)).languageId;
}

/**
 * formatText answers catbuddy/formatText: the formatter's edits against
 * params.text ({edits}), or null when no formatter is registered for the
 * language.
 */
export async function formatText(params: FormatTextParams): Promise<{ edits: convert.LspTextEdit[] } | null> {
  if (typeof params?.uri !== 'string' || typeof params.text !== 'string') {
    throw new ResponseError(INVALID_PARAMS, 'catbuddy/formatText: want {uri, text}');
  }
  const uri = vscode.Uri.parse(params.uri);
  const language = typeof params.languageId === 'string' && params.languageId ? params.languageId : await languageOf(uri);
  const editor = vscode.workspace.getConfiguration('editor', { uri, languageId: language });
  const options: vscode.FormattingOptions = params.options ?? {
    tabSize: editor.get<number>('tabSize', 4),
    insertSpaces: editor.get<boolean>('insertSpaces', true),
  };
  opening.push(params.text);
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument({ language, content: params.text });
  } finally {
    const i = opening.indexOf(params.text);
    if (i >= 0) {
      opening.splice(i, 1);
    }
  }
  scratch.add(doc.uri.toString());
  try {
    const edits = await formatWhole(doc, options);
    if (edits === undefined || edits === null) {
      return null;
    }
    return { edits: convert.textEdits(edits) ?? [] };
  } finally {
    await forget(doc);
  }
}

/**
 * formatWhole runs the language's formatters over the whole of the
 * document at uri, as Format Document does. VS Code's
 * executeFormatDocumentProvider asks only the document formatters, and
 * some languages register only a range formatter (VS Code's TypeScript
 * and JavaScript among them), which Format Document uses for the whole
 * document; so when no document formatter answers, the range formatters
 * are asked for the document's full range. Both commands answer
 * undefined when nothing answers with an edit.
 */
async function formatWhole(doc: vscode.TextDocument, options: vscode.FormattingOptions): Promise<vscode.TextEdit[] | undefined> {
  const edits = await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatDocumentProvider', doc.uri, options);
  if (edits !== undefined && edits !== null) {
    return edits;
  }
  const whole = new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
  return (await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatRangeProvider', doc.uri, whole, options)) ?? undefined;
}

/**
 * forget empties the scratch document: an empty untitled document is not
 * dirty, so VS Code drops it without asking to save it, and hot exit does
 * not bring it back.
 */
async function forget(doc: vscode.TextDocument): Promise<void> {
  if (doc.getText() === '') {
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.delete(doc.uri, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end));
  await vscode.workspace.applyEdit(edit);
  // Applying the edit can show the untitled document in an editor; its
  // tab is closed (empty, so without a save prompt).
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString());
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs, true);
  }
  // It stays marked until VS Code drops it (closedScratch).
}

/** closedScratch tells whether doc, now closed, was a scratch document, and forgets it: VS Code reuses untitled names. */
export function closedScratch(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'untitled' && scratch.delete(doc.uri.toString());
}

/** registerFormatText declares the capability on client and answers its requests. */
export function registerFormatText(client: {
  registerFeature(f: StaticFeature): void;
  onRequest(method: string, handler: (params: FormatTextParams) => Promise<unknown>): unknown;
}): void {
  client.registerFeature(formatTextCapability);
  client.onRequest('catbuddy/formatText', (params) => formatText(params));
}
