// When Tab keeps a next-edit suggestion (nextEdit.ts): the context key
// catbuddy.nextEditAtCursor is on only for a "nes-" hunk on or next to the
// cursor's line, never for an agent run's hunk, so that Tab stays the
// editor's everywhere else.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PendingModel } from '../src/pendingModel';
import { isNextEdit, nextEditNear } from '../src/nextEdit';

const uri = 'file:///p/calc.go';

// A next edit replacing lines 5 and 6 (0-based), as the server sends it.
function withNextEdit(m: PendingModel, runId = 'nes-3'): void {
  m.update({ runId, title: 'Next edit', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [{
    id: `${runId}.1`, range: { start: { line: 5, character: 0 }, end: { line: 7, character: 0 } },
    oldText: '\t\ttotal += i\n\t\tn++\n', newText: '\t\tsum += i\n\t\tn++\n', label: 'Next edit: calc.go: line 6',
  }] }] });
}

test('isNextEdit: only the nes- pseudo-runs', () => {
  assert.equal(isNextEdit('nes-1'), true);
  assert.equal(isNextEdit('r2'), false);
  assert.equal(isNextEdit('run-nes-1'), false);
});

test('nextEditNear: on its lines and the line above and below, not further', () => {
  const m = new PendingModel();
  withNextEdit(m);
  const near = (line: number) => nextEditNear(m.hunks(uri), line)?.runId;
  assert.deepEqual([3, 4, 5, 6, 7, 8].map(near), [undefined, 'nes-3', 'nes-3', 'nes-3', 'nes-3', undefined]);
  assert.equal(nextEditNear(m.hunks('file:///p/other.go'), 5), undefined, 'another document has none');
});

test('nextEditNear: an insertion is near its line and the lines around it', () => {
  const m = new PendingModel();
  m.update({ runId: 'nes-4', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [{
    id: 'nes-4.1', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, oldText: '', newText: 'x := 1\n',
  }] }] });
  const near = (line: number) => nextEditNear(m.hunks(uri), line)?.hunk.id;
  assert.deepEqual([0, 1, 2, 3, 4].map(near), [undefined, 'nes-4.1', 'nes-4.1', 'nes-4.1', undefined]);
});

test('nextEditNear: an agent run\'s hunk is never one, and the withdrawal clears it', () => {
  const m = new PendingModel();
  m.update({ runId: 'r1', title: 'Agent: Fix This', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [{
    id: 'h1', range: { start: { line: 5, character: 0 }, end: { line: 6, character: 0 } }, oldText: 'a\n', newText: 'b\n',
  }] }] });
  assert.equal(nextEditNear(m.hunks(uri), 5), undefined, 'Tab must not keep a run\'s change');
  withNextEdit(m);
  assert.equal(nextEditNear(m.hunks(uri), 5)?.runId, 'nes-3', 'the next edit, beside the run\'s hunk');
  m.update({ runId: 'nes-3', files: [] }); // the next change withdraws it
  assert.equal(nextEditNear(m.hunks(uri), 5), undefined);
});
