// The pending-changes model against the shared fixture
// (editors/testdata/pending_changes.json), which the Neovim plugin's tests
// assert too.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PendingModel, PendingNotification, pendingEndMessage, pendingSummaryText, placedAt, withHunks } from '../src/pendingModel';

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

test('pending: a run\'s summary counts its files and hunks, a group as one', () => {
  const m = load();
  const r1 = m.summary('r1');
  assert.ok(r1 && r1.files === 2, JSON.stringify(r1));
  assert.equal(r1.hunks, m.files('r1').reduce((n, f) => n + (f.file.group ? 1 : f.file.hunks?.length ?? 0), 0));
  assert.equal(pendingSummaryText({ files: 2, hunks: 3 }), '3 changes pending in 2 files');
  assert.equal(pendingSummaryText({ files: 1, hunks: 1 }), '1 change pending in 1 file');
  m.update({ runId: 'r1', files: [] });
  assert.equal(m.summary('r1'), undefined, 'nothing pending: no summary');
});

test('pending: withHunks keeps the hunks in the text and places each in it', () => {
  const m = new PendingModel();
  const text = 'a\nb\nc\nd\ne\n';
  const h = (id: string, l0: number, l1: number, oldText: string, newText: string) => ({ id, range: { start: { line: l0, character: 0 }, end: { line: l1, character: 0 } }, oldText, newText });
  m.update({ runId: 'r1', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [
    h('h1', 1, 2, 'b\n', 'B1\nB2\n'), // one line becomes two
    h('h2', 3, 4, 'd\n', ''), // a removal
    h('h3', 5, 5, '', 'f\n'), // an insertion at the end
  ] }] });
  m.update({ runId: 'r2', files: [{ uri, path: 'calc.go', kind: 'changed', hunks: [h('x1', 1, 2, 'b\n', 'X\n')] }] });
  const mine = m.hunks(uri).filter((x) => x.runId === 'r1');
  const { text: out, placed } = withHunks(text, mine);
  assert.equal(out, 'a\nB1\nB2\nc\ne\nf\n');
  assert.deepEqual(placed.map((p) => [p.hunk.hunk.id, p.first, p.last]), [['h1', 1, 3], ['h2', 4, 4], ['h3', 5, 6]]);
  assert.equal(placedAt(placed, 2)?.hunk.hunk.id, 'h1');
  assert.equal(placedAt(placed, 3)?.hunk.hunk.id, 'h2', 'a removal is found from the line above');
  assert.equal(placedAt(placed, 5)?.hunk.hunk.id, 'h3');
  assert.equal(placedAt(placed, 0), undefined);
  // Two runs on the same line: the later overlapping hunk is left out.
  const both = withHunks(text, m.hunks(uri));
  assert.equal(both.placed.filter((p) => p.hunk.hunk.range.start.line === 1).length, 1);
  // Columns count UTF-16 units, as VS Code's do.
  const one = withHunks('é😀x\n', [{ runId: 'r', title: 'r', first: 0, last: 1, added: ['y'], hunk: { id: 'c', range: { start: { line: 0, character: 3 }, end: { line: 0, character: 4 } }, oldText: 'x', newText: 'y' } }]);
  assert.equal(one.text, 'é😀y\n');
});
