// The pending-changes model against the shared fixture
// (editors/testdata/pending_changes.json), which the Neovim plugin's tests
// assert too.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PendingModel, PendingNotification, pendingEndMessage } from '../src/pendingModel';

const fixture = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'testdata', 'pending_changes.json'), 'utf8'));
const uri = 'file:///p/calc.go';

function load(): PendingModel {
  const m = new PendingModel();
  const raw = JSON.stringify(fixture.notifications).split('{{uri}}').join(uri).split('{{root}}').join('file:///p');
  for (const n of JSON.parse(raw) as PendingNotification[]) {
    m.update(n);
  }
  return m;
}

test('pending: the fixture gives the same hunks, removed and added lines as in Neovim', () => {
  const m = load();
  assert.equal(m.count(), fixture.count);
  const hs = m.hunks(uri);
  assert.equal(hs.length, fixture.hunks.length);
  fixture.hunks.forEach((want: { id: string; run: string; removed: number[]; added: string[]; conflict?: boolean }, i: number) => {
    const h = hs[i];
    assert.equal(h.hunk.id, want.id);
    assert.equal(h.runId, want.run);
    const removed: number[] = [];
    for (let l = h.first; l < h.last; l++) {
      removed.push(l);
    }
    assert.deepEqual(removed, want.removed, `removed lines of ${want.id}`);
    assert.deepEqual(h.added, want.added, `added lines of ${want.id}`);
    assert.equal(h.hunk.conflict !== undefined, want.conflict === true, `conflict of ${want.id}`);
  });
  assert.ok(m.severalRuns(), 'two runs: hunks say their run');
});

test('pending: at() finds the hunk under a line; an empty set clears its run', () => {
  const m = load();
  assert.equal(m.at(uri, 3)?.hunk.id, 'h1');
  assert.equal(m.at(uri, 1), undefined);
  assert.equal(m.at(uri, 8)?.hunk.id, 'h2', 'an insertion from the line above');
  const touched = m.update(JSON.parse(JSON.stringify(fixture.cleared)));
  assert.ok(touched.has(uri), 'the file is redrawn');
  assert.equal(m.count(), fixture.countAfterClear);
  assert.deepEqual(m.runIds(), ['r2']);
});

test('pending: files list +N −M and the end message counts files', () => {
  const m = load();
  const files = m.files('r1');
  assert.equal(files.length, 2);
  assert.deepEqual([files[0].added, files[0].removed], [5, 1]);
  assert.equal(files[1].file.group?.count, 12);
  assert.equal(pendingEndMessage(3), '3 files changed — pending review');
  assert.equal(pendingEndMessage(1), '1 file changed — pending review');
});

test('pending: a run named at its start keeps the name through notifications without one', () => {
  const m = new PendingModel();
  m.setTitle('r9', 'Agent: Fix This');
  const hunk = { id: 'h1', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, oldText: 'a\n', newText: 'b\n' };
  m.update({ runId: 'r9', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [hunk] }] });
  assert.equal(m.run('r9')?.title, 'Agent: Fix This');
  m.update({ runId: 'r9', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [hunk, { ...hunk, id: 'h2' }] }] });
  assert.equal(m.run('r9')?.title, 'Agent: Fix This');
  assert.deepEqual(m.files('r9').map((f) => [f.file.path, f.added, f.removed]), [['calc.go', 2, 2]]);
});
