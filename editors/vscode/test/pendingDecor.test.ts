// Which decoration each pending hunk's lines get (pendingDecor.ts): a
// conflicted hunk is framed as a conflict, and stops being one as soon as
// a newer catbuddy/pendingChanges says so.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PendingHunk, PendingModel } from '../src/pendingModel';
import { hunkLines } from '../src/pendingDecor';

const uri = 'file:///p/calc.go';
const replace: PendingHunk = { id: 'h1', range: { start: { line: 3, character: 0 }, end: { line: 5, character: 0 } }, oldText: 'a\nb\n', newText: 'c\n' };
const insert: PendingHunk = { id: 'h2', range: { start: { line: 8, character: 0 }, end: { line: 8, character: 0 } }, oldText: '', newText: 'd\n' };

function payload(m: PendingModel, conflict?: string): void {
  m.update({ runId: 'r1', title: 'Agent: Fix This', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [{ ...replace, conflict }, { ...insert, conflict }] }] });
}

test('pendingDecor: a conflicted hunk is framed as a conflict, not drawn as removed', () => {
  const m = new PendingModel();
  payload(m, 'your typing touches its lines');
  const d = hunkLines(m.hunks(uri), 20, false);
  assert.deepEqual(d.removed, [], 'a conflicted hunk is not a plain removal');
  assert.deepEqual(d.conflicts, [{ first: 3, last: 4 }, { first: 8, last: 8 }], 'its lines, and an insertion\'s line, are framed');
  assert.deepEqual(d.after.map((a) => [a.line, a.conflict]), [[4, true], [8, true]]);
  assert.match(d.after[0].text, /^⚠ conflict: your typing touches its lines · \+ c$/);
});

test('pendingDecor: a newer payload without the conflict clears its decoration', () => {
  const m = new PendingModel();
  payload(m, 'your typing touches its lines');
  assert.equal(hunkLines(m.hunks(uri), 20, false).conflicts.length, 2);
  // The user undid the typing: the server's next set has no conflict.
  payload(m);
  const d = hunkLines(m.hunks(uri), 20, false);
  assert.deepEqual(d.conflicts, []);
  assert.deepEqual(d.removed, [{ first: 3, last: 4 }], 'drawn as a pending removal again; the insertion has no removed lines');
  assert.deepEqual(d.after.map((a) => [a.line, a.conflict, a.text]), [[4, false, '+ c'], [8, false, '+ d']]);
});

test('pendingDecor: lines past the end of a shorter buffer stay in it', () => {
  const m = new PendingModel();
  payload(m, 'gone');
  const d = hunkLines(m.hunks(uri), 4, false);
  assert.deepEqual(d.conflicts, [{ first: 3, last: 3 }, { first: 3, last: 3 }]);
  assert.deepEqual(d.after.map((a) => a.line), [3, 3]);
});

test('pendingDecor: a newer payload without the conflicted hunk (resolved) removes its decoration', () => {
  const m = new PendingModel();
  payload(m, 'your typing touches its lines');
  // The conflicted insertion was resolved: the server's next set has only the other hunk.
  m.update({ runId: 'r1', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [replace] }] });
  const d = hunkLines(m.hunks(uri), 20, false);
  assert.deepEqual(d.conflicts, [], 'no frame left');
  assert.deepEqual(d.removed, [{ first: 3, last: 4 }]);
  assert.deepEqual(d.after.map((a) => a.line), [4], 'only the other hunk\'s text');
  // The last hunk resolved: the run's set is empty and nothing is drawn.
  m.update({ runId: 'r1', files: [] });
  assert.deepEqual(hunkLines(m.hunks(uri), 20, false), { removed: [], conflicts: [], after: [] });
});
