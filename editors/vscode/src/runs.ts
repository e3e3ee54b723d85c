// Run state from the server's catbuddy/runEvent notifications, and what the
// status bar shows for it. Pure: the status bar item itself is in statusBar.ts.

/** RunEvent is a catbuddy/runEvent notification (docs/PROTOCOL.md); extra fields vary by kind. */
export interface RunEvent {
  runId: string;
  kind: string;
  command?: string;
  uri?: string;
  title?: string;
  text?: string;
  tool?: string;
  isError?: boolean;
  outcome?: 'done' | 'error' | 'cancelled';
  answer?: string;
  error?: string;
  transcriptUri?: string;
  /** edit is set on a tool_result that changed a file. */
  edit?: unknown;
  /** usage is set on a usage event. */
  usage?: Usage;
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
  lastTool?: string;
  /** changed is true once the run changed a file: its end offers Undo. */
  changed?: boolean;
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
        this.active.set(ev.runId, { runId: ev.runId, title: ev.title || ev.command || 'agent', uri: ev.uri });
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
        if (r && ev.edit && !ev.isError) {
          r.changed = true;
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
        const r = this.active.get(ev.runId) ?? { runId: ev.runId, title: ev.command || 'agent' };
        this.active.delete(ev.runId);
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

/** EndMessage is the one notification the extension shows when a run ends. */
export interface EndMessage {
  severity: 'info' | 'error';
  text: string;
  /** buttons: Undo (the run changed files), Open Transcript (a failed run), Set API Key… (a refused key). */
  actions: ('Undo' | 'Open Transcript' | 'Set API Key…')[];
}

/**
 * endMessage is what the user is told when a run ends: the answer, the
 * cancellation, or the failure with the way to its transcript. title is the
 * command's title as the server gave it ("Agent: Fix this"). The server
 * sends nothing else for a run's end to this client (the experimental
 * capability catbuddy.runEnd), so this is the only notification. A run
 * that changed files offers Undo (catbuddy.undoRun) whatever its outcome.
 */
export function endMessage(title: string, ev: RunEvent, changed = false): EndMessage {
  const undo: EndMessage['actions'] = changed ? ['Undo'] : [];
  switch (ev.outcome ?? 'done') {
    case 'done':
      return { severity: 'info', text: ev.answer?.trim() || `${title}: done.`, actions: undo };
    case 'cancelled':
      // The reason already reads "cancelled by the user".
      return { severity: 'info', text: `${title}: ${ev.error || 'cancelled'}.`, actions: undo };
    default: {
      const error = ev.error || 'unknown error';
      const actions: EndMessage['actions'] = [...undo];
      if (error.includes('Agent: Set API Key')) {
        actions.push('Set API Key…');
      }
      if (ev.transcriptUri) {
        actions.push('Open Transcript');
      }
      return { severity: 'error', text: `${title} failed: ${error}`, actions };
    }
  }
}
