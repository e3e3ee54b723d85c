// Conversions from the results of VS Code's language feature commands
// (vscode.executeDefinitionProvider and the others) to the LSP results that
// the catbuddy/languageFeature request answers with (docs/PROTOCOL.md).
// Pure: it works on the shapes of VS Code's objects, not on the classes, so
// it is unit-tested without VS Code. Positions need no conversion: VS Code
// and cb-ls both count UTF-16 code units.

/** Position is a 0-based line and UTF-16 character. */
export interface Position {
  line: number;
  character: number;
}

/** Range is a VS Code or LSP range. */
export interface Range {
  start: Position;
  end: Position;
}

/** UriLike is a vscode.Uri as far as the conversions need it. */
export interface UriLike {
  toString(): string;
}

/** LspLocation is an LSP Location. */
export interface LspLocation {
  uri: string;
  range: Range;
}

/** CodeLocation is a vscode.Location or a vscode.LocationLink. */
export type CodeLocation =
  | { uri: UriLike; range: Range }
  | { targetUri: UriLike; targetRange: Range; targetSelectionRange?: Range; originSelectionRange?: Range };

/** range copies a VS Code range into a plain LSP one. */
export function range(r: Range): Range {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/**
 * locations converts what definition, type definition, implementation and
 * reference providers answer to LSP Locations, dropping the duplicates that
 * two providers for one language produce. A LocationLink becomes the
 * location of its target's name (targetSelectionRange), the place a reader
 * wants, or of the whole target when the link has no name range.
 */
export function locations(items: readonly CodeLocation[] | undefined | null): LspLocation[] {
  const out: LspLocation[] = [];
  const seen = new Set<string>();
  for (const it of items ?? []) {
    const loc =
      'targetUri' in it
        ? { uri: it.targetUri.toString(), range: range(it.targetSelectionRange ?? it.targetRange) }
        : { uri: it.uri.toString(), range: range(it.range) };
    const key = `${loc.uri}#${loc.range.start.line}:${loc.range.start.character}-${loc.range.end.line}:${loc.range.end.character}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(loc);
    }
  }
  return out;
}

/** CodeHover is a vscode.Hover: MarkdownStrings, or the deprecated MarkedStrings. */
export interface CodeHover {
  contents: readonly (string | { value: string; language?: string })[];
  range?: Range;
}

/** LspHover is an LSP Hover with markdown contents. */
export interface LspHover {
  contents: { kind: 'markdown'; value: string };
  range?: Range;
}

/**
 * hover merges the hovers of every provider into one markdown text, in the
 * order VS Code gives them; null when none says anything.
 */
export function hover(items: readonly CodeHover[] | undefined | null): LspHover | null {
  const parts: string[] = [];
  let r: Range | undefined;
  for (const h of items ?? []) {
    for (const c of h.contents) {
      const text = typeof c === 'string' ? c : c.language !== undefined ? '```' + c.language + '\n' + c.value + '\n```' : c.value;
      if (text.trim() !== '') {
        parts.push(text);
      }
    }
    r ??= h.range;
  }
  if (parts.length === 0) {
    return null;
  }
  const out: LspHover = { contents: { kind: 'markdown', value: parts.join('\n\n') } };
  if (r) {
    out.range = range(r);
  }
  return out;
}

// VS Code's SymbolKind counts from 0 (File), LSP's from 1; SymbolTag.Deprecated is 1 in both.
const symbolKind = (k: number): number => k + 1;

/** CodeDocumentSymbol is a vscode.DocumentSymbol. */
export interface CodeDocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  tags?: readonly number[];
  range: Range;
  selectionRange: Range;
  children?: readonly CodeDocumentSymbol[];
}

/** CodeSymbolInformation is a vscode.SymbolInformation. */
export interface CodeSymbolInformation {
  name: string;
  containerName?: string;
  kind: number;
  tags?: readonly number[];
  location: { uri: UriLike; range: Range };
}

/** LspDocumentSymbol is an LSP DocumentSymbol. */
export interface LspDocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  tags?: number[];
  range: Range;
  selectionRange: Range;
  children?: LspDocumentSymbol[];
}

/** LspSymbolInformation is an LSP SymbolInformation. */
export interface LspSymbolInformation {
  name: string;
  kind: number;
  tags?: number[];
  containerName?: string;
  location: LspLocation;
}

function documentSymbol(s: CodeDocumentSymbol): LspDocumentSymbol {
  const out: LspDocumentSymbol = { name: s.name, kind: symbolKind(s.kind), range: range(s.range), selectionRange: range(s.selectionRange) };
  if (s.detail) {
    out.detail = s.detail;
  }
  if (s.tags && s.tags.length > 0) {
    out.tags = [...s.tags];
  }
  if (s.children && s.children.length > 0) {
    out.children = s.children.map(documentSymbol);
  }
  return out;
}

/** symbolInformation converts one workspace (or flat document) symbol. */
export function symbolInformation(s: CodeSymbolInformation): LspSymbolInformation {
  const out: LspSymbolInformation = {
    name: s.name,
    kind: symbolKind(s.kind),
    location: { uri: s.location.uri.toString(), range: range(s.location.range) },
  };
  if (s.containerName) {
    out.containerName = s.containerName;
  }
  if (s.tags && s.tags.length > 0) {
    out.tags = [...s.tags];
  }
  return out;
}

/**
 * documentSymbols converts a document's outline. VS Code answers with
 * objects that are DocumentSymbols (with children) when the provider gave a
 * hierarchy; those are kept as a hierarchy, the way the outline shows them.
 * A provider that gave only flat SymbolInformations yields those.
 */
export function documentSymbols(
  items: readonly (CodeDocumentSymbol | CodeSymbolInformation)[] | undefined | null,
): LspDocumentSymbol[] | LspSymbolInformation[] {
  const list = items ?? [];
  if (list.every((s) => 'selectionRange' in s)) {
    return (list as CodeDocumentSymbol[]).map(documentSymbol);
  }
  return list.filter((s): s is CodeSymbolInformation => 'location' in s).map(symbolInformation);
}

/** CodeCallHierarchyItem is a vscode.CallHierarchyItem. */
export interface CodeCallHierarchyItem {
  name: string;
  kind: number;
  tags?: readonly number[];
  detail?: string;
  uri: UriLike;
  range: Range;
  selectionRange: Range;
}

/** LspCallHierarchyItem is an LSP CallHierarchyItem. */
export interface LspCallHierarchyItem {
  name: string;
  kind: number;
  tags?: number[];
  detail?: string;
  uri: string;
  range: Range;
  selectionRange: Range;
  data?: unknown;
}

/**
 * callHierarchyItem converts an item; data is what the server sends back to
 * ask for the item's calls (VS Code finds calls only for the very item
 * object it returned, so the extension keeps it under that key).
 */
export function callHierarchyItem(it: CodeCallHierarchyItem, data: unknown): LspCallHierarchyItem {
  const out: LspCallHierarchyItem = { name: it.name, kind: symbolKind(it.kind), uri: it.uri.toString(), range: range(it.range), selectionRange: range(it.selectionRange), data };
  if (it.detail) {
    out.detail = it.detail;
  }
  if (it.tags && it.tags.length > 0) {
    out.tags = [...it.tags];
  }
  return out;
}

/** CodeTextEdit is a vscode.TextEdit. */
export interface CodeTextEdit {
  range: Range;
  newText: string;
}

/** LspTextEdit is an LSP TextEdit. */
export interface LspTextEdit {
  range: Range;
  newText: string;
}

/** textEdits converts formatting edits. */
export function textEdits(items: readonly CodeTextEdit[] | undefined | null): LspTextEdit[] {
  return (items ?? []).map((e) => ({ range: range(e.range), newText: e.newText }));
}

/** LspWorkspaceEdit is an LSP WorkspaceEdit in its changes form. */
export interface LspWorkspaceEdit {
  changes: Record<string, LspTextEdit[]>;
}

/**
 * workspaceEdit converts a vscode.WorkspaceEdit given by its entries()
 * (the text edits per document). The LSP "changes" form carries no
 * versions: cb-ls pins the edit to the versions it knows before it sends
 * it for review.
 */
export function workspaceEdit(entries: readonly (readonly [UriLike, readonly CodeTextEdit[]])[]): LspWorkspaceEdit {
  const changes: Record<string, LspTextEdit[]> = {};
  for (const [uri, edits] of entries) {
    const key = uri.toString();
    (changes[key] ??= []).push(...textEdits(edits));
  }
  return { changes };
}

/** CodeCommand is a vscode.Command. */
export interface CodeCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

/** CodeCodeAction is a vscode.CodeAction; edit is given by its entries(). */
export interface CodeCodeAction {
  title: string;
  kind?: { value: string };
  diagnostics?: readonly unknown[];
  isPreferred?: boolean;
  disabled?: { reason: string };
  edit?: { entries(): [UriLike, CodeTextEdit[]][] };
  command?: CodeCommand;
}

/** LspCodeAction is an LSP CodeAction, or a Command for a command-only provider. */
export interface LspCodeAction {
  title: string;
  kind?: string;
  diagnostics?: unknown[];
  isPreferred?: boolean;
  disabled?: { reason: string };
  edit?: LspWorkspaceEdit;
  command?: { title: string; command: string };
}

function isCommand(a: CodeCodeAction | CodeCommand): a is CodeCommand {
  return typeof (a as CodeCommand).command === 'string';
}

/** OWN_COMMAND_PREFIX marks cb-ls's own actions (catbuddy.fix…), which the agent must not be offered. */
export const OWN_COMMAND_PREFIX = 'catbuddy.';

/** kindMatches reports whether kind is want or below it ("refactor.extract" is below "refactor"). */
export function kindMatches(kind: string | undefined, want: string): boolean {
  return kind !== undefined && (kind === want || kind.startsWith(want + '.'));
}

/**
 * codeActions converts the actions of every provider but cb-ls's own (whose
 * command is catbuddy.*), keeping only the kinds in only when it is given.
 * A command's arguments stay behind: they are VS Code objects that cannot
 * cross the wire, and an action that is only a command cannot be applied
 * as a reviewed edit anyway. diagnostic converts an action's diagnostics.
 */
export function codeActions(
  items: readonly (CodeCodeAction | CodeCommand)[] | undefined | null,
  only: readonly string[] | undefined,
  diagnostic: (d: unknown) => unknown,
): LspCodeAction[] {
  const out: LspCodeAction[] = [];
  for (const a of items ?? []) {
    if (isCommand(a)) {
      if (!a.command.startsWith(OWN_COMMAND_PREFIX) && (!only || only.length === 0)) {
        out.push({ title: a.title, command: { title: a.title, command: a.command } });
      }
      continue;
    }
    if (a.command?.command.startsWith(OWN_COMMAND_PREFIX)) {
      continue;
    }
    const kind = a.kind?.value;
    if (only && only.length > 0 && !only.some((w) => kindMatches(kind, w))) {
      continue;
    }
    const c: LspCodeAction = { title: a.title };
    if (kind) {
      c.kind = kind;
    }
    if (a.diagnostics && a.diagnostics.length > 0) {
      c.diagnostics = a.diagnostics.map(diagnostic);
    }
    if (a.isPreferred) {
      c.isPreferred = true;
    }
    if (a.disabled) {
      c.disabled = { reason: a.disabled.reason };
    }
    if (a.edit) {
      c.edit = workspaceEdit(a.edit.entries());
    }
    if (a.command) {
      c.command = { title: a.command.title, command: a.command.command };
    }
    out.push(c);
  }
  return out;
}
