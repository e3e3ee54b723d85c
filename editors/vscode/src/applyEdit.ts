// What an incoming workspace/applyEdit touches, and whether it is stale.
// Pure: the middleware that uses it is in review.ts.

/** LspWorkspaceEdit is the part of an LSP WorkspaceEdit this file reads. */
export interface LspWorkspaceEdit {
  changes?: Record<string, unknown[]>;
  documentChanges?: readonly DocumentChange[];
}

type DocumentChange =
  | { textDocument: { uri: string; version: number | null }; edits: unknown[] }
  | { kind: 'create'; uri: string }
  | { kind: 'rename'; oldUri: string; newUri: string }
  | { kind: 'delete'; uri: string };

/** affectedUris lists the documents an edit leaves with new content (to save afterwards), in order. */
export function affectedUris(edit: LspWorkspaceEdit): string[] {
  const out: string[] = [];
  const add = (u: string) => {
    if (!out.includes(u)) {
      out.push(u);
    }
  };
  for (const c of edit.documentChanges ?? []) {
    if ('textDocument' in c) {
      add(c.textDocument.uri);
    } else if (c.kind === 'create') {
      add(c.uri);
    } else if (c.kind === 'rename') {
      const i = out.indexOf(c.oldUri);
      if (i >= 0) {
        out.splice(i, 1);
      }
      add(c.newUri);
    } else if (c.kind === 'delete') {
      const i = out.indexOf(c.uri);
      if (i >= 0) {
        out.splice(i, 1);
      }
    }
  }
  for (const u of Object.keys(edit.changes ?? {})) {
    add(u);
  }
  return out;
}

/** Stale is a TextDocumentEdit pinned to a version the open buffer no longer has. */
export interface Stale {
  /** index is the edit's position in documentChanges: the answer's failedChange. */
  index: number;
  uri: string;
  expected: number;
  actual: number;
}

/**
 * staleEdits lists the edits whose version does not match the open buffer
 * (version null means "not open" and is never stale). VS Code refuses such an
 * edit with applied:false and no reason; the server needs to know it was the
 * version, not the user: then it merges its edit over the user's typing and
 * sends it again (docs/PROTOCOL.md, Stale edits). The extension merges nothing.
 */
export function staleEdits(edit: LspWorkspaceEdit, openVersion: (uri: string) => number | undefined): Stale[] {
  const out: Stale[] = [];
  (edit.documentChanges ?? []).forEach((c, index) => {
    if ('textDocument' in c && typeof c.textDocument.version === 'number' && c.textDocument.version >= 0) {
      const actual = openVersion(c.textDocument.uri);
      if (actual !== undefined && actual !== c.textDocument.version) {
        out.push({ index, uri: c.textDocument.uri, expected: c.textDocument.version, actual });
      }
    }
  });
  return out;
}

/** staleAnswer is the applyEdit answer for stale edits: not applied, failedChange naming the first. */
export function staleAnswer(stale: readonly Stale[]): { applied: false; failureReason: string; failedChange: number } {
  return { applied: false, failureReason: staleReason(stale), failedChange: stale[0].index };
}

/** REJECTED is the failureReason for an edit the user declined in the Refactor Preview. */
export const REJECTED = 'rejected by user';

/** staleReason is the failureReason for stale edits. */
export function staleReason(stale: readonly Stale[]): string {
  const s = stale[0];
  return `document changed since the edit was made: ${s.uri} is at version ${s.actual}, the edit expected ${s.expected}`;
}
