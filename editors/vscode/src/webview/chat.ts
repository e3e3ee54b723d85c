/// <reference lib="dom" />
// The chat view's page script (bundled into out/webview/chat.js). It draws
// what the extension posts — a run's events, or a stored run's transcript —
// and posts back what the user does. All text goes through the markdown
// renderer or textContent: nothing from a model or a tool becomes live HTML.
import { render } from '../markdown';
import { attachMentions } from './mentions';

interface Ev {
  kind: string;
  title?: string;
  input?: string;
  text?: string;
  tool?: string;
  callId?: string;
  args?: Record<string, unknown>;
  output?: string;
  isError?: boolean;
  edit?: { path: string; added: number; removed: number };
  usage?: { inputTokens?: number; outputTokens?: number };
  outcome?: string;
  answer?: string;
  error?: string;
}
interface Pending {
  files: number;
  hunks: number;
}
interface Shown {
  runId: string;
  title: string;
  history?: string;
  events: Ev[];
  pending?: Pending | null;
}
type Msg =
  | { type: 'show'; run: Shown | null }
  | { type: 'pending'; runId: string; pending: Pending | null }
  | { type: 'event'; runId: string; ev: Ev }
  | { type: 'focus' }
  | { type: 'mentions'; id: number; paths: string[] };

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };
const vscode = acquireVsCodeApi();

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = $('log');
const title = $('title');
const tokens = $('tokens');
const stop = $<HTMLButtonElement>('stop');
const input = $<HTMLTextAreaElement>('input');
const send = $<HTMLButtonElement>('send');
const mentions = attachMentions(input, $<HTMLUListElement>('mentions'), (m) => vscode.postMessage(m));

let shown: Shown | null = null;
let running = false;
let used = { in: 0, out: 0 };
let text: { el: HTMLElement; md: string } | null = null; // the assistant text streaming in
const rows = new Map<string, HTMLElement>(); // tool rows by call id
const pendingBar = makePendingBar();
const calls = new Map<string, Record<string, unknown> | undefined>();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, content?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (content !== undefined) e.textContent = content;
  return e;
}

/** label is a tool call's short form: the tool and what it works on. */
function label(tool: string, args?: Record<string, unknown>): string {
  for (const k of ['path', 'file_path', 'pattern', 'command', 'url']) {
    const v = args?.[k];
    if (typeof v === 'string' && v !== '') {
      const one = v.split('\n')[0];
      return `${tool} ${one.length > 60 ? one.slice(0, 60) + '…' : one}`;
    }
  }
  return tool;
}

/**
 * makePendingBar is the run's pending changes under its last message:
 * "3 changes pending in 2 files" with Keep All, Undo All and Review (the
 * diff editor), the same commands as the Pending Changes view. It is
 * kept last in the log while the run goes on, and hidden when nothing is
 * pending.
 */
function makePendingBar(): { el: HTMLElement; text: HTMLElement } {
  const bar = el('div', 'pending-bar');
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', 'Pending changes of this run');
  const text = el('span', 'pending-text');
  text.setAttribute('aria-live', 'polite');
  bar.append(text);
  const buttons: [string, string, string][] = [
    ['keep', 'Keep All', 'Keep every pending change of this run (catbuddy.keep)'],
    ['undo', 'Undo All', 'Discard every pending change of this run (catbuddy.discard)'],
    ['review', 'Review', 'Review in Diff Editor: each file against it with the changes kept'],
  ];
  for (const [action, label, tip] of buttons) {
    const b = el('button', action === 'keep' ? 'primary' : '', label);
    b.title = tip;
    b.dataset.action = action;
    b.addEventListener('click', () => vscode.postMessage({ type: 'pending', runId: shown?.runId, action }));
    bar.append(b);
  }
  bar.hidden = true;
  return { el: bar, text };
}

/** showPending draws the shown run's pending count (nothing pending: no bar). */
function showPending(p: Pending | null | undefined) {
  if (!p || p.hunks === 0) {
    pendingBar.el.hidden = true;
    pendingBar.el.remove();
    return;
  }
  pendingBar.text.textContent = `${p.hunks} change${p.hunks === 1 ? '' : 's'} pending in ${p.files} file${p.files === 1 ? '' : 's'}`;
  pendingBar.el.hidden = false;
  log.append(pendingBar.el);
}

/** keepPendingLast moves the bar after what a new event added. */
function keepPendingLast() {
  if (!pendingBar.el.hidden && pendingBar.el.nextSibling) {
    log.append(pendingBar.el);
  }
}

function setRunning(on: boolean) {
  running = on;
  stop.hidden = !on;
  document.body.classList.toggle('running', on);
}

function showTokens() {
  tokens.textContent = used.in + used.out > 0 ? `${used.in.toLocaleString()} in · ${used.out.toLocaleString()} out tokens` : '';
}

function scroll() {
  log.scrollTop = log.scrollHeight;
}

function apply(ev: Ev) {
  switch (ev.kind) {
    case 'start': {
      text = null;
      const user = el('div', 'msg user');
      user.append(el('div', 'who', 'You'));
      const body = el('div', 'body');
      body.innerHTML = render(ev.input && ev.input !== '' ? ev.input : ev.title ?? 'Agent');
      user.append(body);
      log.append(user);
      setRunning(true);
      break;
    }
    case 'text': {
      if (!text) {
        const a = el('div', 'msg agent');
        const body = el('div', 'body');
        a.append(body);
        log.append(a);
        text = { el: body, md: '' };
      }
      text.md += ev.text ?? '';
      text.el.innerHTML = render(text.md);
      break;
    }
    case 'tool_call': {
      text = null;
      calls.set(ev.callId ?? '', ev.args);
      const row = el('details', 'tool pending');
      const sum = el('summary');
      sum.append(el('span', 'name', label(ev.tool ?? '?', ev.args)));
      row.append(sum);
      log.append(row);
      rows.set(ev.callId ?? '', row);
      break;
    }
    case 'tool_result': {
      text = null;
      let row = rows.get(ev.callId ?? '');
      if (!row) {
        row = el('details', 'tool');
        row.append(el('summary'));
        log.append(row);
      }
      row.classList.remove('pending');
      row.classList.toggle('error', !!ev.isError);
      const sum = row.querySelector('summary')!;
      sum.textContent = '';
      const args = calls.get(ev.callId ?? '');
      if (ev.edit) {
        sum.append(el('span', 'name', `${ev.tool} ${ev.edit.path}`));
        sum.append(el('span', 'added', ` +${ev.edit.added}`), el('span', 'removed', ` −${ev.edit.removed}`));
        const diff = el('button', 'link-button', 'Open diff');
        diff.title = `Show the change to ${ev.edit.path}`;
        diff.addEventListener('click', (e) => {
          e.preventDefault();
          vscode.postMessage({ type: 'diff', runId: shown?.runId, callId: ev.callId });
        });
        sum.append(diff);
      } else {
        sum.append(el('span', 'name', label(ev.tool ?? '?', args)));
      }
      const exit = /\[exit code (-?\d+)\]/.exec(ev.output ?? '');
      if (exit) {
        sum.append(el('span', exit[1] === '0' ? 'exit' : 'exit bad', ` → exit ${exit[1]}`));
      }
      if (ev.isError) {
        sum.append(el('span', 'bad', ' ✗'));
      }
      row.querySelector('pre')?.remove();
      row.append(el('pre', 'output', ev.output ?? ''));
      break;
    }
    case 'usage':
      used = { in: used.in + (ev.usage?.inputTokens ?? 0), out: used.out + (ev.usage?.outputTokens ?? 0) };
      showTokens();
      break;
    case 'end': {
      if (ev.outcome === 'done' && ev.answer && (!text || text.md.trim() !== ev.answer.trim())) {
        const a = el('div', 'msg agent answer');
        const body = el('div', 'body');
        body.innerHTML = render(ev.answer);
        a.append(body);
        log.append(a);
      } else if (text) {
        text.el.parentElement?.classList.add('answer');
      }
      const status = el('div', `outcome ${ev.outcome ?? ''}`, ev.outcome === 'done' ? 'Done' : `${ev.outcome ?? 'ended'}${ev.error ? ': ' + ev.error : ''}`);
      log.append(status);
      text = null;
      setRunning(false);
      break;
    }
  }
}

function show(run: Shown | null) {
  shown = run;
  mentions.close();
  log.textContent = '';
  rows.clear();
  calls.clear();
  text = null;
  used = { in: 0, out: 0 };
  setRunning(false);
  title.textContent = run ? run.title : 'New conversation';
  input.placeholder = run ? 'Reply to the agent (Enter sends, Shift+Enter for a new line)' : 'Ask the agent about the current file (Enter sends)';
  if (!run) {
    log.append(el('p', 'hint', 'Run Fix This, Explain This or a custom command, pick an earlier run, or ask a question below.'));
  } else if (run.history) {
    const h = el('div', 'history');
    h.innerHTML = render(run.history);
    log.append(h);
  }
  for (const ev of run?.events ?? []) {
    apply(ev);
  }
  showPending(run?.pending);
  showTokens();
  scroll();
}

function submit() {
  const value = input.value.trim();
  if (value === '' || running) {
    return;
  }
  vscode.postMessage({ type: 'send', runId: shown?.runId, text: value });
  input.value = '';
  mentions.close();
}

window.addEventListener('message', (e: MessageEvent<Msg>) => {
  const m = e.data;
  if (m.type === 'show') {
    show(m.run);
  } else if (m.type === 'event' && shown && m.runId === shown.runId) {
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    apply(m.ev);
    keepPendingLast();
    if (atEnd) scroll();
  } else if (m.type === 'pending' && shown && m.runId === shown.runId) {
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    shown.pending = m.pending;
    showPending(m.pending);
    if (atEnd) scroll();
  } else if (m.type === 'focus') {
    input.focus();
  } else if (m.type === 'mentions') {
    mentions.answer(m.id, m.paths);
  }
});
send.addEventListener('click', submit);
input.addEventListener('keydown', (e) => {
  if (mentions.keydown(e)) {
    return; // the open @-path list took it
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
stop.addEventListener('click', () => vscode.postMessage({ type: 'stop', runId: shown?.runId }));
$('runs').addEventListener('click', () => vscode.postMessage({ type: 'runs' }));
$('new').addEventListener('click', () => vscode.postMessage({ type: 'new' }));
vscode.postMessage({ type: 'ready' });
