// Ghost-text completions at the cursor (docs/completions.md).
//
// vscode-languageclient 11 has the LSP 3.18 feature built in
// (InlineCompletionItemFeature): once cb-ls advertises
// inlineCompletionProvider, the client registers VS Code's inline
// completion provider for the client's documents (file and untitled, any
// language), sends textDocument/inlineCompletion with VS Code's
// cancellation token, so that VS Code giving up on a request (the user
// typed on) sends $/cancelRequest, and turns the InlineCompletionList into
// VS Code's items, which VS Code shows as ghost text and Tab accepts.
//
// What the extension adds is only whether to ask at all: never while the
// user turned completions off in VS Code (catbuddy.inlineCompletion.enabled
// unticked), which the server is also told, so that no request leaves at
// every keystroke; never for the scratch documents of catbuddy/formatText,
// which cb-ls is not told of. While the setting is unset the server decides
// (cb-ls's config.json), answering an empty list at once when off.
// Pure: the middleware sees documents only through skip.

/** GateOptions say when not to ask cb-ls. */
export interface GateOptions<D> {
  /** enabled is catbuddy.inlineCompletion.enabled as the user set it: undefined while unset. */
  enabled: () => boolean | undefined;
  /** skip tells the documents cb-ls does not know (formatText's scratch documents). */
  skip: (document: D) => boolean;
}

/**
 * askCompletions returns what the client middleware's
 * provideInlineCompletionItems asks before each request: false (answer no
 * items, send nothing) while completions are off in VS Code or for a
 * document that is not cb-ls's.
 */
export function askCompletions<D>(o: GateOptions<D>): (document: D) => boolean {
  return (document) => o.enabled() !== false && !o.skip(document);
}
