import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAP_MS, QUIET_MS, settleWait } from '../src/settle';

test('settleWait: diagnostics newer than the last change are settled', () => {
  assert.equal(settleWait(1100, 1000, 1000, 1050), 0);
});

test('settleWait: a document not changed lately is answered at once', () => {
  assert.equal(settleWait(5000, 5000, 1000, 0), 0);
  assert.equal(settleWait(5000, 5000, 0, 0), 0, 'never changed');
});

test('settleWait: right after a change, wait for the quiet period', () => {
  assert.equal(settleWait(1100, 1100, 1000, 900), QUIET_MS - 100);
});

test('settleWait: never past the cap', () => {
  // Changes keep coming (the user types): the cap ends the wait.
  assert.equal(settleWait(1000 + CAP_MS - 10, 1000, 1000 + CAP_MS - 20, 0), 10);
  assert.equal(settleWait(1000 + CAP_MS, 1000, 1000 + CAP_MS - 5, 0), 0);
});
