import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endMessage, Runs } from '../src/runs';

test('Runs: start → tool_call → end drives idle/running/idle', () => {
  const r = new Runs();
  r.server = 'running';
  assert.equal(r.view().kind, 'idle');
  r.apply({ runId: '1', kind: 'start', command: 'fix', title: 'Agent: Fix This', uri: 'file:///w/a.go' });
  assert.deepEqual(r.ids(), ['1']);
  assert.equal(r.view().kind, 'running');
  assert.equal(r.view().command, 'catbuddy.cancel');
  r.apply({ runId: '1', kind: 'tool_call', tool: 'edit_file' });
  assert.match(r.view().text, /Agent: Fix This \(edit_file\)/);
  const { ended } = r.apply({ runId: '1', kind: 'end', outcome: 'done', transcriptUri: 'file:///w/.catbuddy/sessions/1.md' });
  assert.equal(ended?.outcome, 'done');
  assert.equal(ended?.title, 'Agent: Fix This');
  assert.equal(r.lastTranscript, 'file:///w/.catbuddy/sessions/1.md');
  assert.equal(r.view().kind, 'idle');
});

test('Runs: a failed run shows an error until the next run starts', () => {
  const r = new Runs();
  r.server = 'running';
  r.apply({ runId: 'a', kind: 'start', command: 'explain' });
  r.apply({ runId: 'a', kind: 'end', outcome: 'error', error: '401 from provider' });
  assert.equal(r.view().kind, 'error');
  assert.match(r.view().tooltip, /401 from provider/);
  r.apply({ runId: 'b', kind: 'start', command: 'fix' });
  assert.equal(r.view().kind, 'running');
  r.apply({ runId: 'b', kind: 'end', outcome: 'cancelled' });
  assert.equal(r.view().kind, 'idle');
});

test('Runs: two runs at once, and events without a runId are ignored', () => {
  const r = new Runs();
  r.server = 'running';
  r.apply({ runId: 'a', kind: 'start' });
  r.apply({ runId: 'b', kind: 'start' });
  r.apply({ kind: 'start' } as never);
  assert.match(r.view().text, /2 runs/);
  r.apply({ runId: 'a', kind: 'end', outcome: 'done' });
  assert.deepEqual(r.ids(), ['b']);
  r.clear();
  assert.deepEqual(r.ids(), []);
});

test('Runs: a missing server is an error that points to the log', () => {
  const r = new Runs();
  r.server = 'missing';
  r.serverError = '"cb-ls" was not found on PATH';
  const v = r.view();
  assert.equal(v.kind, 'error');
  assert.equal(v.command, 'catbuddy.showLog');
  assert.match(v.tooltip, /not found on PATH/);
});

test('endMessage: one short notification per run end, titles not doubled', () => {
  const title = 'Agent: Explain This';
  assert.deepEqual(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done', answer: 'It adds.' }), { severity: 'info', text: 'It adds.', actions: ['Show'] });
  // A long answer: its first line, and "…" says the chat view has more.
  assert.equal(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done', answer: '\n  Add returns `a + b`:\n\n```go\nfunc Add…\n```\n' }).text, 'Add returns `a + b`: …');
  assert.equal(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done', answer: 'x'.repeat(500) }).text, 'x'.repeat(139) + '…');
  assert.equal(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done', answer: '  \n' }).text, 'Agent: done');
  const cancelled = endMessage(title, { runId: 'r1', kind: 'end', outcome: 'cancelled', error: 'cancelled by the user' });
  assert.equal(cancelled.text, 'Agent: Explain This: cancelled by the user.');
  assert.deepEqual(cancelled.actions, ['Show', 'Show Log']);
  const failed = endMessage(title, {
    runId: 'r1',
    kind: 'end',
    outcome: 'error',
    error: 'openai at http://x: HTTP 401 — check OPENAI_API_KEY, apiKey in the user config, or the editor\'s key (VS Code: Agent: Set API Key…)',
    transcriptUri: 'file:///w/.catbuddy/sessions/x.md',
  });
  assert.equal(failed.severity, 'error');
  assert.ok(failed.text.startsWith('Agent: Explain This failed: openai at http://x: HTTP 401'), failed.text);
  assert.ok(!failed.text.includes('Agent: Agent:'), failed.text);
  assert.deepEqual(failed.actions, ['Set API Key…', 'Show Log', 'Open Transcript']);
});

test('endMessage: a run that changed files counts them and offers Undo', () => {
  const r = new Runs();
  r.apply({ runId: 'r1', kind: 'start', title: 'Agent: Fix This' });
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'edit_file', edit: { path: 'calc.go' } });
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'edit_file', edit: { path: 'calc.go' } });
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'edit_file', isError: true, edit: { path: 'bad.go' } });
  r.apply({ runId: 'r1', kind: 'files_changed', files: [{ path: 'gen.go' }, { path: 'calc.go' }] });
  // apply_patch over three files: every one counts, not only the first.
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'apply_patch', edit: { path: 'calc.go' }, edits: [{ path: 'calc.go' }, { path: 'a.go' }, { path: 'b.go' }] });
  const { ended } = r.apply({ runId: 'r1', kind: 'end', outcome: 'done', answer: 'Fixed.' });
  assert.deepEqual([...(ended?.changed ?? [])], ['calc.go', 'gen.go', 'a.go', 'b.go']);
  const done = endMessage('Agent: Fix This', { runId: 'r1', kind: 'end', outcome: 'done', answer: 'Fixed.' }, ended?.changed.size);
  assert.deepEqual(done, { severity: 'info', text: 'Agent: done — 4 files changed', actions: ['Show', 'Undo'] });
  assert.equal(endMessage('Agent: Fix This', { runId: 'r1', kind: 'end', outcome: 'done' }, 1).text, 'Agent: done — 1 file changed');
  assert.deepEqual(endMessage('Agent: Fix This', { runId: 'r1', kind: 'end', outcome: 'error', error: 'boom' }, 1).actions, ['Undo', 'Show Log']);
  // A new turn (a reply) counts its own files.
  r.apply({ runId: 'r1', kind: 'start', title: 'Agent: Fix This', turn: 2 });
  assert.equal(r.apply({ runId: 'r1', kind: 'end', outcome: 'done', turn: 2 }).ended?.changed.size, 0);
});

test('endMessage: the server\'s account of a pending run\'s end replaces the edits seen', () => {
  const r = new Runs();
  r.apply({ runId: 'r1', kind: 'start', title: 'Agent: Fix This' });
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'edit_file', edit: { path: 'calc.go' } });
  r.apply({ runId: 'r1', kind: 'tool_result', tool: 'write_file', edit: { path: 'notes.txt' } });
  // Both were pending; the user discarded both before the run ended.
  const end = { runId: 'r1', kind: 'end', outcome: 'done' as const, answer: 'Fixed, with notes.', pending: 0 };
  const { ended } = r.apply(end);
  assert.equal(ended?.changed.size, 0);
  const m = endMessage('Agent: Fix This', end, ended?.changed.size, end.pending);
  assert.deepEqual(m, { severity: 'info', text: 'Fixed, with notes.', actions: ['Show'] }, 'no "done — 2 files changed" and no Undo');
  // calc.go kept, notes.txt discarded: one file changed, and Undo puts it back.
  r.apply({ runId: 'r2', kind: 'start', title: 'Agent: Fix This' });
  r.apply({ runId: 'r2', kind: 'tool_result', tool: 'edit_file', edit: { path: 'calc.go' } });
  r.apply({ runId: 'r2', kind: 'tool_result', tool: 'write_file', edit: { path: 'notes.txt' } });
  const kept = r.apply({ runId: 'r2', kind: 'end', outcome: 'done', changed: ['calc.go'], pending: 0 }).ended;
  assert.deepEqual([...(kept?.changed ?? [])], ['calc.go']);
  assert.deepEqual(endMessage('Agent: Fix This', { runId: 'r2', kind: 'end', outcome: 'done' }, kept?.changed.size, 0), { severity: 'info', text: 'Agent: done — 1 file changed', actions: ['Show', 'Undo'] });
});

test('Runs: the status bar tooltip counts tokens, cached input included', () => {
  const r = new Runs();
  r.server = 'running';
  r.apply({ runId: '1', kind: 'start', command: 'fix', title: 'Agent: Fix This' });
  r.apply({ runId: '1', kind: 'usage', usage: { inputTokens: 3000, outputTokens: 10 } });
  assert.match(r.view().tooltip, /running \(3000 in \/ 10 out tokens so far\)/);
  r.apply({ runId: '1', kind: 'usage', usage: { inputTokens: 3100, outputTokens: 5, cachedInputTokens: 2900 } });
  r.apply({ runId: '1', kind: 'end', outcome: 'done' });
  assert.equal(r.view().tooltip, 'cb-ls: idle (last run: 6100 in (2900 cached) / 15 out tokens)');
});

test('endMessage: a run whose changes are pending offers review, not Undo', () => {
  const title = 'Agent: Fix This';
  const done = endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done', answer: 'Fixed.' }, 1, 1);
  assert.deepEqual(done, { severity: 'info', text: 'Agent: Fix This (r1): 1 file changed — pending review', actions: ['Review', 'Keep All', 'Undo All'] });
  assert.equal(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done' }, 3, 3).text, 'Agent: Fix This (r1): 3 files changed — pending review');
  const cancelled = endMessage(title, { runId: 'r1', kind: 'end', outcome: 'cancelled', error: 'cancelled by the user' }, 2, 2);
  assert.equal(cancelled.text, 'Agent: Fix This (r1): cancelled by the user. 2 files changed — pending review.');
  assert.deepEqual(cancelled.actions, ['Show', 'Review', 'Keep All', 'Undo All', 'Show Log']);
  const failed = endMessage(title, { runId: 'r1', kind: 'end', outcome: 'error', error: 'HTTP 500' }, 1, 1);
  assert.ok(!failed.actions.includes('Undo'), failed.actions.join());
  assert.deepEqual(failed.actions.slice(0, 3), ['Review', 'Keep All', 'Undo All']);
  // Nothing pending: the files are on disk, and Undo is offered as before.
  assert.deepEqual(endMessage(title, { runId: 'r1', kind: 'end', outcome: 'done' }, 1, 0).actions, ['Show', 'Undo']);
});

test('endMessage: parallel runs that end pending each name their run, so VS Code folds none', () => {
  const r = new Runs();
  r.apply({ runId: 'r0a1b2c3d', kind: 'start', command: 'fix', title: 'Agent: Fix This', uri: 'file:///w/calc.go' });
  r.apply({ runId: 'r4e5f6a7b', kind: 'start', command: 'fix', title: 'Agent: Fix This', uri: 'file:///w/sub/calc.go' });
  r.apply({ runId: 'r8c9d0e1f', kind: 'start', command: 'ask', title: 'Agent: Ask', uri: 'file:///w/my%20file.go', input: 'make it faster\nand explain why' });
  const texts = ['r0a1b2c3d', 'r4e5f6a7b', 'r8c9d0e1f'].map((id) => {
    const end = { runId: id, kind: 'end', outcome: 'done' as const, pending: 1 };
    const { ended } = r.apply(end);
    assert.ok(ended);
    return endMessage(ended.title, end, ended.changed.size, end.pending, ended).text;
  });
  assert.deepEqual(texts, [
    'Agent: Fix This (calc.go, r0a1b2c3d): 1 file changed — pending review',
    'Agent: Fix This (calc.go, r4e5f6a7b): 1 file changed — pending review',
    'Agent: Ask "make it faster" (my file.go, r8c9d0e1f): 1 file changed — pending review',
  ]);
  assert.equal(new Set(texts).size, texts.length, 'no two are the same');
  // Cancelled and failed runs with pending changes name theirs too.
  const run = { runId: 'r1', input: 'x'.repeat(80), uri: 'file:///w/a.go' };
  const cancelled = endMessage('Agent: Ask', { runId: 'r1', kind: 'end', outcome: 'cancelled', error: 'cancelled by the user' }, 0, 2, run);
  assert.equal(cancelled.text, `Agent: Ask "${'x'.repeat(59)}…" (a.go, r1): cancelled by the user. 2 files changed — pending review.`);
  const failed = endMessage('Agent: Ask', { runId: 'r1', kind: 'end', outcome: 'error', error: 'HTTP 500' }, 0, 1, run);
  assert.ok(failed.text.startsWith(`Agent: Ask "${'x'.repeat(59)}…" (a.go, r1) failed: HTTP 500`), failed.text);
  // Nothing pending: the message is as before, without the run's name.
  assert.equal(endMessage('Agent: Ask', { runId: 'r1', kind: 'end', outcome: 'cancelled', error: 'cancelled by the user' }, 0, 0, run).text, 'Agent: Ask: cancelled by the user.');
});
