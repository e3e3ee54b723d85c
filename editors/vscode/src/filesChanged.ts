// Files a write command changed on disk (a files_changed runEvent). VS Code
// reloads an open document without unsaved changes from its file watcher by
// itself, and the reloaded text reaches the server as a didChange. A document
// with unsaved changes keeps them, and VS Code says nothing until the user
// saves; so the user is told here which of those a command changed, and how
// to load the version on disk.

/** ChangedFile is one file of a files_changed runEvent (docs/PROTOCOL.md). */
export interface ChangedFile {
  uri: string;
  path: string;
  kind: string; // created, changed, deleted
  runsLater?: boolean;
}

/** OpenDoc is an open text document, its URI in the server's form. */
export interface OpenDoc {
  uri: string;
  isDirty: boolean;
}

/** keptMessage is the warning for documents with unsaved changes whose file
 * a command changed or deleted; undefined when there is none. */
export function keptMessage(command: string | undefined, files: ChangedFile[], docs: OpenDoc[]): string | undefined {
  const dirty = new Set(docs.filter((d) => d.isDirty).map((d) => d.uri));
  const hit = files.filter((f) => dirty.has(f.uri));
  const changed = hit.filter((f) => f.kind !== 'deleted').map((f) => f.path);
  const deleted = hit.filter((f) => f.kind === 'deleted').map((f) => f.path);
  const who = command ? `\`${command}\`` : 'A command';
  const parts: string[] = [];
  if (changed.length > 0) {
    parts.push(`${who} changed ${changed.join(', ')} on disk; your unsaved changes are kept (File: Revert File loads the version on disk).`);
  }
  if (deleted.length > 0) {
    parts.push(`${who} deleted ${deleted.join(', ')}; the editor keeps your text (Save writes it back).`);
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}
