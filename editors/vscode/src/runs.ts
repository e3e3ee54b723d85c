// Run state from the server's catbuddy/runEvent notifications, and what the
// status bar shows for it. Pure: the status bar item itself is in statusBar.ts.
import { pendingEndMessage } from './pendingModel';

/** RunEvent is a catbuddy/runEvent notification (docs/PROTOCOL.md); extra fields vary by kind. */
export interface RunEvent {
  runId: string;
  kind: string;
  command?: string;
  uri?: string;
  title?: string;
  /** input (start) is the user's text for the turn: the instruction. */
  input?: string;
  text?: string;
  tool?: string;
  isError?: boolean;
  outcome?: 'done' | 'error' | 'cancelled';
  answer?: string;
  error?: string;
  transcriptUri?: string;
  /** edit is set on a tool_result that changed a file: the first of edits. */
  edit?: { uri?: string; path?: string };
  /** edits are every file a tool_result changed (apply_patch changes several). */
  edits?: { uri?: string; path?: string }[];
  /** files is set on a files_changed event (an exec command changed them). */
  files?: { uri?: string; path?: string }[];
  /** turn is 1 for a run's first request, 2… for each reply (start and end). */
  turn?: number;
  /** usage is set on a usage event. */
  usage?: Usage;
  /**
   * changed (end) are the files the turn changed in the user's files, as
   * the server counts them: accepted edits, kept hunks, commands that
   * wrote; not what is still pending or was discarded. Left out when none.
   */
  changed?: string[];
  /** pending (end) counts the run's files whose changes still wait for review. */
  pending?: number;
}

/** Usage is a usage event's token counts; inputTokens includes the cached ones. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
}

/** tokenText is "12000 in (9000 cached) / 300 out tokens". */
export function tokenText(u: Required<Usage>): string {
  const cached = u.cachedInputTokens > 0 ? ` (${u.cachedInputTokens} cached)` : '';
  return `${u.inputTokens} in${cached} / ${u.outputTokens} out tokens`;
}

/** ServerState is the language client's life cycle as the status bar sees it. */
export type ServerState = 'starting' | 'running' | 'stopped' | 'missing' | 'failed';

/** Run is one run in progress. */
export interface Run {
  runId: string;
  title: string;
  uri?: string;
  /** input is the instruction of the run's current turn, when it has one. */
  input?: string;
  lastTool?: string;
  /** changed holds the files this turn changed (paths): its end counts them and offers Undo. */
  changed: Set<string>;
  /** tokens sums the run's usage events. */
  tokens?: Required<Usage>;
}

/** StatusView is what the status bar item shows. */
export interface StatusView {
  text: string;
  tooltip: string;
  kind: 'idle' | 'running' | 'error';
  /** command run on click: cancel while running, the log otherwise. */
  command: 'catbuddy.cancel' | 'catbuddy.showLog';
}

/** Runs tracks the runs in progress and the last outcome. */
export class Runs {
  private readonly active = new Map<string, Run>();
  server: ServerState = 'starting';
  serverError?: string;
  lastError?: string;
  lastTranscript?: string;
  /** lastTokens is the token use of the last run that ended. */
  lastTokens?: string;

  /** apply updates the state with one event; it returns the run that ended, if any. */
  apply(ev: RunEvent): { ended?: Run & { outcome: string } } {
    if (typeof ev?.runId !== 'string') {
      return {};
    }
    switch (ev.kind) {
      case 'start':
        this.active.set(ev.runId, { runId: ev.runId, title: ev.title || ev.command || 'agent', uri: ev.uri, input: ev.input || undefined, changed: new Set() });
        this.lastError = undefined;
        return {};
      case 'tool_call': {
        const r = this.active.get(ev.runId);
        if (r && ev.tool) {
          r.lastTool = ev.tool;
        }
        return {};
      }
      case 'tool_result': {
        const r = this.active.get(ev.runId);
        for (const e of r && !ev.isError ? ev.edits ?? (ev.edit ? [ev.edit] : []) : []) {
          const file = e.path || e.uri;
          if (file) {
            r!.changed.add(file);
          }
        }
        return {};
      }
      case 'files_changed': {
        const r = this.active.get(ev.runId);
        for (const f of r ? ev.files ?? [] : []) {
          const file = f.path || f.uri;
          if (file) {
            r!.changed.add(file);
          }
        }
        return {};
      }
      case 'usage': {
        const r = this.active.get(ev.runId);
        if (r && ev.usage) {
          const t = (r.tokens ??= { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });
          t.inputTokens += ev.usage.inputTokens ?? 0;
          t.outputTokens += ev.usage.outputTokens ?? 0;
          t.cachedInputTokens += ev.usage.cachedInputTokens ?? 0;
        }
        return {};
      }
      case 'end': {
        const r = this.active.get(ev.runId) ?? { runId: ev.runId, title: ev.command || 'agent', changed: new Set<string>() };
        this.active.delete(ev.runId);
        if (typeof ev.pending === 'number') {
          // The server's account (it sends pending with every end, and
          // changed when there are any): a pending edit the user
          // discarded, or one still pending, is not a change of the
          // user's files.
          r.changed = new Set(ev.changed ?? []);
        }
        this.lastTokens = r.tokens ? tokenText(r.tokens) : undefined;
        if (ev.transcriptUri) {
          this.lastTranscript = ev.transcriptUri;
        }
        const outcome = ev.outcome ?? 'done';
        this.lastError = outcome === 'error' ? ev.error || 'the run failed' : undefined;
        return { ended: { ...r, outcome } };
      }
    }
    return {};
  }

  /** ids lists the runs in progress. */
  ids(): string[] {
    return [...this.active.keys()];
  }

  /** clear forgets the runs in progress (the server stopped: they are gone with it). */
  clear(): void {
    this.active.clear();
  }

  /** view is the status bar's text for the current state. */
  view(): StatusView {
    if (this.server === 'missing' || this.server === 'failed') {
      return {
        text: '$(error) cb-ls',
        tooltip: `cb-ls: ${this.serverError ?? 'the server is not running'}`,
        kind: 'error',
        command: 'catbuddy.showLog',
      };
    }
    const runs = [...this.active.values()];
    if (runs.length > 0) {
      const first = runs[0];
      const what = runs.length === 1 ? first.title + (first.lastTool ? ` (${first.lastTool})` : '') : `${runs.length} runs`;
      const used = runs.length === 1 && first.tokens ? ` (${tokenText(first.tokens)} so far)` : '';
      return { text: `$(sync~spin) ${what}`, tooltip: `cb-ls: running${used}; click to cancel`, kind: 'running', command: 'catbuddy.cancel' };
    }
    if (this.lastError) {
      return { text: '$(error) cb-ls', tooltip: `cb-ls: last run failed: ${this.lastError}`, kind: 'error', command: 'catbuddy.showLog' };
    }
    if (this.server === 'starting') {
      return { text: '$(loading~spin) cb-ls', tooltip: 'cb-ls: starting', kind: 'idle', command: 'catbuddy.showLog' };
    }
    if (this.server === 'stopped') {
      return { text: '$(circle-slash) cb-ls', tooltip: 'cb-ls: stopped', kind: 'idle', command: 'catbuddy.showLog' };
    }
    const last = this.lastTokens ? ` (last run: ${this.lastTokens})` : '';
    return { text: '$(sparkle) cb-ls', tooltip: `cb-ls: idle${last}`, kind: 'idle', command: 'catbuddy.showLog' };
  }
}

/** EndAction is a button of a run's end notification. */
export type EndAction = 'Show' | 'Undo' | 'Review' | 'Keep All' | 'Undo All' | 'Show Log' | 'Open Transcript' | 'Set API Key…';

/** EndMessage is the one notification the extension shows when a run ends. */
export interface EndMessage {
  severity: 'info' | 'error';
  text: string;
  /**
   * buttons: Show (the run in the chat view), Undo (the run changed files:
   * catbuddy.undoRun), and for a failure Show Log, Open Transcript and Set
   * API Key… (a refused key).
   */
  actions: EndAction[];
}

/** MAX_END_TEXT bounds the answer line of an end notification; the chat view has it all. */
const MAX_END_TEXT = 140;

/**
 * endMessage is what the user is told when a run ends, kept short: the
 * chat view (Show) holds the conversation. A run that changed files says
 * "Agent: done — 2 files changed" and offers Undo; one that changed none
 * says the first line of its answer ("Agent: done" when it has none). A
 * cancelled run says so and offers the log; a failure says why and offers
 * the log and the transcript. title is the command's title as the server gave it ("Agent:
 * Fix This"). The server sends nothing else for a run's end to this client
 * (the experimental capability catbuddy.runEnd), so this is the only
 * notification. changed counts the files the run changed. pending counts
 * the run's files whose changes are still pending: they are not in the
 * user's files, so there is nothing to Undo; the run says "3 files changed
 * — pending review" and offers Review, Keep All and Undo All instead;
 * such a message names its run (runName: its instruction, file and id,
 * from run, else the event's id), as its buttons act on that run only:
 * VS Code folds identical notifications, and two parallel runs that both
 * said "Agent: Fix This: 1 file changed — pending review" showed as one.
 */
export function endMessage(title: string, ev: RunEvent, changed = 0, pending = 0, run?: RunName): EndMessage {
  if (pending > 0) {
    title = `${title} ${runName({ runId: ev.runId, ...run })}`;
  }
  const review: EndAction[] = pending > 0 ? ['Review', 'Keep All', 'Undo All'] : [];
  const undo: EndAction[] = pending > 0 ? review : changed > 0 ? ['Undo'] : [];
  switch (ev.outcome ?? 'done') {
    case 'done':
      if (pending > 0) {
        return { severity: 'info', text: `${title}: ${pendingEndMessage(pending)}`, actions: review };
      }
      return { severity: 'info', text: changed > 0 ? `Agent: done — ${changed} file${changed === 1 ? '' : 's'} changed` : firstLine(ev.answer) || 'Agent: done', actions: ['Show', ...undo] };
    case 'cancelled':
      // The reason already reads "cancelled by the user".
      return { severity: 'info', text: `${title}: ${ev.error || 'cancelled'}.${pendingNote(pending)}`, actions: ['Show', ...undo, 'Show Log'] };
    default: {
      const error = ev.error || 'unknown error';
      const actions: EndAction[] = [...undo];
      if (error.includes('Agent: Set API Key')) {
        actions.push('Set API Key…');
      }
      actions.push('Show Log');
      if (ev.transcriptUri) {
        actions.push('Open Transcript');
      }
      return { severity: 'error', text: `${title} failed: ${error}${pendingNote(pending)}`, actions };
    }
  }
}

/** RunName is what names a run in its end notification. */
export interface RunName { runId?: string; input?: string; uri?: string }

/** MAX_NAME_INPUT bounds the instruction quoted in a run's name. */
const MAX_NAME_INPUT = 60;

/**
 * runName is '"make it faster" (calc.go, r1a2b3c4d)': the first line of
 * the run's instruction when it has one, then its file's name and its id,
 * which no other run shares.
 */
export function runName(r: RunName): string {
  const parts: string[] = [];
  const file = r.uri ? baseName(r.uri) : '';
  if (file) {
    parts.push(file);
  }
  if (r.runId) {
    parts.push(r.runId);
  }
  let said = (r.input ?? '').split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
  if (said.length > MAX_NAME_INPUT) {
    said = said.slice(0, MAX_NAME_INPUT - 1).trimEnd() + '…';
  }
  const quoted = said ? `"${said}"` : '';
  const ids = parts.length > 0 ? `(${parts.join(', ')})` : '';
  return [quoted, ids].filter((p) => p !== '').join(' ');
}

/** baseName is the last segment of a URI or path, decoded. */
function baseName(uri: string): string {
  const seg = uri.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() ?? '';
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/** pendingNote tells, after a cancelled or failed run's reason, that its changes wait for review. */
function pendingNote(pending: number): string {
  return pending > 0 ? ` ${pendingEndMessage(pending)}.` : '';
}

/** firstLine is an answer's first non-empty line, cut to MAX_END_TEXT, with "…" when more follows. */
export function firstLine(answer?: string): string {
  const lines = (answer ?? '').split(/\r?\n/).map((l) => l.trim());
  const i = lines.findIndex((l) => l !== '');
  if (i < 0) {
    return '';
  }
  const more = lines.slice(i + 1).some((l) => l !== '');
  const line = lines[i];
  if (line.length > MAX_END_TEXT) {
    return line.slice(0, MAX_END_TEXT - 1).trimEnd() + '…';
  }
  return more ? line + ' …' : line;
}
