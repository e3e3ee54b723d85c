// The Pending Changes view's row buttons: what each row asks of the
// server, and that a click that came without its row asks nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { rowRequest } from '../src/pendingRow';

test('pendingRow: a run row keeps or undoes the whole run', () => {
  assert.deepEqual(rowRequest('keep', { type: 'run', runId: 'r1' }), { command: 'catbuddy.keep', arg: { runId: 'r1' } });
  assert.deepEqual(rowRequest('undo', { type: 'run', runId: 'r1' }), { command: 'catbuddy.discard', arg: { runId: 'r1' } });
});

test('pendingRow: a file row keeps its file, a hunk row its hunk', () => {
  const uri = 'file:///p/calc.go';
  assert.deepEqual(rowRequest('keep', { type: 'file', runId: 'r1', uri, files: [uri] }), { command: 'catbuddy.keep', arg: { runId: 'r1', files: [uri] } });
  assert.deepEqual(rowRequest('undo', { type: 'hunk', runId: 'r1', uri, hunk: 'h7' }), { command: 'catbuddy.discard', arg: { runId: 'r1', hunks: ['h7'] } });
});

test('pendingRow: a click without its row asks nothing (not the active file instead)', () => {
  assert.equal(rowRequest('keep', undefined), undefined);
  assert.equal(rowRequest('keep', {} as never), undefined);
  assert.equal(rowRequest('undo', { type: 'other', runId: 'r1' } as never), undefined);
});
