// The pending changes the server reported (catbuddy/pendingChanges), kept
// per run, and the questions the editor asks of them. No "vscode" import:
// the unit tests run it under plain node.

export interface Position { line: number; character: number }
export interface PendingHunk {
  id: string;
  range: { start: Position; end: Position };
  oldText: string;
  newText: string;
  label?: string;
  conflict?: string;
}
export interface PendingFile {
  uri: string;
  path: string;
  kind: 'created' | 'changed' | 'deleted';
  hunks?: PendingHunk[];
  group?: { id: string; count: number };
}
export interface PendingNotification { runId: string; title?: string; files: PendingFile[] }

/** ShownHunk is a hunk with its run and the lines it covers in the buffer now. */
export interface ShownHunk {
  runId: string;
  title: string;
  hunk: PendingHunk;
  /** first and last (exclusive) buffer lines the hunk replaces; equal for an insertion. */
  first: number;
  last: number;
  added: string[];
}

/** lines splits a hunk's text into lines, without the final newline's empty one. */
export function lines(text: string): string[] {
  if (text === '') {
    return [];
  }
  return text.replace(/\n$/, '').split('\n');
}

/** PendingModel holds the last notification of each run. */
export class PendingModel {
  private readonly runs = new Map<string, PendingNotification>();
  /** titles names runs before their first notification (which has no title). */
  private readonly titles = new Map<string, string>();

  /** update applies a notification; it returns the URIs whose hunks changed. */
  update(n: PendingNotification): Set<string> {
    const touched = new Set<string>();
    const prev = this.runs.get(n.runId);
    prev?.files.forEach((f) => touched.add(f.uri));
    if (!Array.isArray(n.files) || n.files.length === 0) {
      this.runs.delete(n.runId);
    } else {
      this.runs.set(n.runId, { ...n, title: n.title ?? prev?.title ?? this.titles.get(n.runId) });
      n.files.forEach((f) => touched.add(f.uri));
    }
    return touched;
  }

  /** setTitle names a run (from catbuddy.pendingChanges or its start event). */
  setTitle(runId: string, title: string): void {
    this.titles.set(runId, title);
    const r = this.runs.get(runId);
    if (r) {
      r.title = title;
    }
  }

  clear(): void {
    this.runs.clear();
  }

  runIds(): string[] {
    return [...this.runs.keys()].sort();
  }

  run(runId: string): PendingNotification | undefined {
    return this.runs.get(runId);
  }

  /** count is the number of pending hunks of every run (a group counts one). */
  count(): number {
    let n = 0;
    for (const r of this.runs.values()) {
      for (const f of r.files) {
        n += f.group ? 1 : (f.hunks?.length ?? 0);
      }
    }
    return n;
  }

  /** hunks returns the pending hunks of uri, sorted by line. */
  hunks(uri: string): ShownHunk[] {
    const out: ShownHunk[] = [];
    for (const r of this.runs.values()) {
      for (const f of r.files) {
        if (f.uri !== uri) {
          continue;
        }
        for (const h of f.hunks ?? []) {
          const s = h.range.start;
          const e = h.range.end;
          const last = e.character > 0 ? e.line + 1 : e.line;
          out.push({ runId: r.runId, title: r.title ?? r.runId, hunk: h, first: s.line, last: Math.max(s.line, last), added: lines(h.newText) });
        }
      }
    }
    return out.sort((a, b) => a.first - b.first || a.runId.localeCompare(b.runId));
  }

  /** at returns the hunk of uri at line (an insertion is found from its line and the one above). */
  at(uri: string, line: number): ShownHunk | undefined {
    return this.hunks(uri).find((h) => (line >= h.first && line < h.last) || (h.first === h.last && (line === h.first || line === h.first - 1)));
  }

  /** files lists a run's files with +added −removed lines. */
  files(runId: string): { file: PendingFile; added: number; removed: number }[] {
    return (this.runs.get(runId)?.files ?? []).map((file) => {
      let added = 0;
      let removed = 0;
      for (const h of file.hunks ?? []) {
        added += lines(h.newText).length;
        removed += lines(h.oldText).length;
      }
      return { file, added, removed };
    });
  }

  /** severalRuns reports whether hunks must say their run (two runs pending). */
  severalRuns(): boolean {
    return this.runs.size > 1;
  }
}

/** pendingEndMessage is the end notification of a run with pending changes. */
export function pendingEndMessage(files: number): string {
  return `${files} file${files === 1 ? '' : 's'} changed — pending review`;
}

/** afterText is the one-line text of a hunk's new lines shown after its last replaced line. */
export function afterText(h: ShownHunk, several: boolean): string {
  const first = h.added[0] ?? '';
  const more = h.added.length > 1 ? `  (+${h.added.length - 1} more line${h.added.length > 2 ? 's' : ''})` : '';
  const what = h.added.length === 0 ? '− remove these lines' : `+ ${first.trim()}${more}`;
  return `${several ? `[${h.title}] ` : ''}${h.hunk.conflict ? '⚠ conflict: ' + h.hunk.conflict + ' · ' : ''}${what}`;
}
