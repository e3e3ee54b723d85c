import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { quantile, Timings } from '../src/timings';

test('timings: medians by kind, the largest hunk count, and a reset', () => {
  assert.equal(quantile([], 0.5), 0);
  assert.equal(quantile([5, 1, 3], 0.5), 3);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 10);
  const t = new Timings();
  for (let i = 0; i < 3; i++) {
    t.stop('update', t.start(), 200 - i);
  }
  t.stop('keystroke', t.start());
  const r = t.report();
  assert.equal(r.update.count, 3);
  assert.equal(r.update.hunks, 200);
  assert.ok(r.update.medianMs >= 0 && r.update.medianMs < 50, JSON.stringify(r.update));
  assert.equal(r.keystroke.count, 1);
  assert.equal('hunks' in r.keystroke, false);
  t.reset();
  assert.deepEqual(t.report(), {});
});
