import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affectedUris, staleAnswer, staleEdits, staleReason } from '../src/applyEdit';

const tde = (uri: string, version: number | null) => ({ textDocument: { uri, version }, edits: [] });

test('affectedUris: edited, created and renamed documents, once each, deleted ones dropped', () => {
  const got = affectedUris({
    documentChanges: [
      tde('file:///w/a.go', 3),
      { kind: 'create', uri: 'file:///w/new.go' },
      tde('file:///w/new.go', null),
      tde('file:///w/a.go', 3),
      tde('file:///w/old.go', null),
      { kind: 'rename', oldUri: 'file:///w/old.go', newUri: 'file:///w/renamed.go' },
      tde('file:///w/gone.go', null),
      { kind: 'delete', uri: 'file:///w/gone.go' },
    ],
    changes: { 'file:///w/b.go': [] },
  });
  assert.deepEqual(got, ['file:///w/a.go', 'file:///w/new.go', 'file:///w/renamed.go', 'file:///w/b.go']);
});

test('staleEdits: only open buffers whose version moved on', () => {
  const open = new Map([
    ['file:///w/a.go', 5],
    ['file:///w/b.go', 2],
  ]);
  const stale = staleEdits(
    { documentChanges: [tde('file:///w/b.go', 2), tde('file:///w/a.go', 4), tde('file:///w/closed.go', 7), tde('file:///w/a.go', null)] },
    (u) => open.get(u),
  );
  assert.deepEqual(stale, [{ index: 1, uri: 'file:///w/a.go', expected: 4, actual: 5 }]);
  assert.match(staleReason(stale), /a\.go is at version 5, the edit expected 4/);
  // The answer names the stale edit by its place in documentChanges, so the server merges and asks again.
  const answer = staleAnswer(stale);
  assert.equal(answer.applied, false);
  assert.equal(answer.failedChange, 1);
  assert.match(answer.failureReason, /a\.go is at version 5/);
  assert.deepEqual(staleEdits({ changes: { 'file:///w/a.go': [] } }, (u) => open.get(u)), []);
});
