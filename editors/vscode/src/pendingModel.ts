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
  /** whole: one whole-file item (binary, big, a link, a FIFO); its one
   * hunk's label describes it and it has no lines to draw. */
  whole?: boolean;
  /** runsLater says why the file runs later without a build command (direnv's .envrc, a CI workflow). */
  runsLater?: string;
  /** keepRefused says why keep will not write the file (under .git/, a FIFO); it can be discarded. */
  keepRefused?: string;
}
export interface PendingNotification { runId: string; title?: string; files: PendingFile[] }

/** PendingSummary is what a run's chat message says of its pending changes. */
export interface PendingSummary { files: number; hunks: number }

/** pendingSummaryText is "3 changes pending in 2 files". */
export function pendingSummaryText(p: PendingSummary): string {
  return `${p.hunks} change${p.hunks === 1 ? '' : 's'} pending in ${p.files} file${p.files === 1 ? '' : 's'}`;
}

/** ShownHunk is a hunk with its run and the lines it covers in the buffer now. */
export interface ShownHunk {
  runId: string;
  title: string;
  hunk: PendingHunk;
  /** first and last (exclusive) buffer lines the hunk replaces; equal for an insertion. */
  first: number;
  last: number;
  added: string[];
  /** file is the hunk's file, for its flags (runsLater, keepRefused). */
  file?: PendingFile;
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

  /** has tells whether uri has pending hunks (cheaper than hunks(uri), per keystroke). */
  has(uri: string): boolean {
    for (const r of this.runs.values()) {
      if (r.files.some((f) => f.uri === uri && !f.whole && (f.hunks?.length ?? 0) > 0)) {
        return true;
      }
    }
    return false;
  }

  /** hunksOfRun counts run runId's pending hunks (a group counts one). */
  hunksOfRun(runId: string): number {
    return this.summary(runId)?.hunks ?? 0;
  }

  /** summary counts run runId's pending files and hunks (a group counts one); undefined when nothing is pending. */
  summary(runId: string): PendingSummary | undefined {
    const r = this.runs.get(runId);
    if (!r || r.files.length === 0) {
      return undefined;
    }
    let hunks = 0;
    for (const f of r.files) {
      hunks += f.group ? 1 : (f.hunks?.length ?? 0);
    }
    return { files: r.files.length, hunks };
  }

  /** wholeFiles returns uri's whole-file items, one per run: no lines of theirs are in any buffer. */
  wholeFiles(uri: string): { runId: string; title: string; file: PendingFile }[] {
    const out: { runId: string; title: string; file: PendingFile }[] = [];
    for (const r of this.runs.values()) {
      for (const f of r.files) {
        if (f.uri === uri && f.whole) {
          out.push({ runId: r.runId, title: r.title ?? r.runId, file: f });
        }
      }
    }
    return out.sort((a, b) => a.runId.localeCompare(b.runId));
  }

  /** hunks returns the pending hunks of uri, sorted by line; a whole-file item has none (wholeFiles). */
  hunks(uri: string): ShownHunk[] {
    const out: ShownHunk[] = [];
    for (const r of this.runs.values()) {
      for (const f of r.files) {
        if (f.uri !== uri || f.whole) {
          continue;
        }
        for (const h of f.hunks ?? []) {
          const s = h.range.start;
          const e = h.range.end;
          const last = e.character > 0 ? e.line + 1 : e.line;
          out.push({ runId: r.runId, title: r.title ?? r.runId, hunk: h, first: s.line, last: Math.max(s.line, last), added: lines(h.newText), file: f });
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

/** PlacedHunk is a hunk and the lines it fills in the text with the hunks kept. */
export interface PlacedHunk {
  hunk: ShownHunk;
  /** first and last (exclusive) lines of its new text there; equal for a removal. */
  first: number;
  last: number;
}

/**
 * withHunks is text (the document as it is now) with hunks kept: what the
 * diff editor shows as pending. The hunks' ranges are in text's
 * coordinates (UTF-16, as the server sends them to VS Code); a hunk that
 * overlaps the one before it (another run's, on the same lines) is left
 * out. It also says where each hunk's new lines are in the result, so
 * that a line there finds its hunk.
 */
export function withHunks(text: string, hunks: ShownHunk[]): { text: string; placed: PlacedHunk[] } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    starts.push(i + 1);
  }
  const offset = (p: Position) => (p.line >= starts.length ? text.length : Math.min(starts[p.line] + p.character, p.line + 1 < starts.length ? starts[p.line + 1] : text.length));
  const sorted = hunks
    .map((h) => ({ h, start: offset(h.hunk.range.start), end: offset(h.hunk.range.end) }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: string[] = [];
  const placed: PlacedHunk[] = [];
  let at = 0;
  let line = 0; // lines of the result so far
  for (const { h, start, end } of sorted) {
    if (start < at || end < start) {
      continue;
    }
    const before = text.slice(at, start);
    out.push(before, h.hunk.newText);
    line += newlines(before);
    const first = line;
    line += newlines(h.hunk.newText);
    placed.push({ hunk: h, first, last: first + h.added.length });
    at = end;
  }
  out.push(text.slice(at));
  return { text: out.join(''), placed };
}

/** placedAt finds the placed hunk on line of the pending text (a removal from its line and the one above). */
export function placedAt(placed: PlacedHunk[], line: number): PlacedHunk | undefined {
  return placed.find((p) => (line >= p.first && line < p.last) || (p.first === p.last && (line === p.first || line === p.first - 1)));
}

function newlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
    n++;
  }
  return n;
}
