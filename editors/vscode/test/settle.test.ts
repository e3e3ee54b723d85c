import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OLD_SERVER_RULE, SettleClock, SettleRule, SettleTimes, settle, settleRule, settleWait } from '../src/settle';

// A rule unlike the old one, so that a test passes only if the server's values are used.
const RULE: SettleRule = { quietMs: 300, capMs: 1200 };
const QUIET_MS = RULE.quietMs;
const CAP_MS = RULE.capMs;

test('settleRule: the server\'s params.settle; the old values for a server without it', () => {
  assert.deepEqual(settleRule({ uri: 'file:///a', settle: { quietMs: 300, capMs: 1200 } }), { quietMs: 300, capMs: 1200 });
  assert.deepEqual(settleRule({ uri: 'file:///a' }), { quietMs: 750, capMs: 2000 }, 'an older server sends no settle');
  assert.deepEqual(OLD_SERVER_RULE, { quietMs: 750, capMs: 2000 });
  for (const bad of [{ quietMs: 0, capMs: 1 }, { quietMs: '750', capMs: 2000 }, { quietMs: 5 }, null, 7]) {
    assert.deepEqual(settleRule({ settle: bad }), OLD_SERVER_RULE, JSON.stringify(bad));
  }
  assert.deepEqual(settleRule(undefined), OLD_SERVER_RULE);
});

test('settleWait: diagnostics newer than the last change are settled', () => {
  assert.equal(settleWait(1100, 1000, 1000, 1050, RULE), 0);
});

test('settleWait: a document not changed lately is answered at once', () => {
  assert.equal(settleWait(5000, 5000, 1000, 0, RULE), 0);
  assert.equal(settleWait(5000, 5000, 0, 0, RULE), 0, 'never changed');
});

test('settleWait: right after a change, wait for the quiet period', () => {
  assert.equal(settleWait(1100, 1100, 1000, 900, RULE), QUIET_MS - 100);
});

test('settleWait: never past the cap', () => {
  // Changes keep coming (the user types): the cap ends the wait.
  assert.equal(settleWait(1000 + CAP_MS - 10, 1000, 1000 + CAP_MS - 20, 0, RULE), 10);
  assert.equal(settleWait(1000 + CAP_MS, 1000, 1000 + CAP_MS - 5, 0, RULE), 0);
});

/**
 * fakeClock drives settle without real time: the clock moves only when a
 * test moves it, and each wait settle asks for is handed to the test, which
 * ends it (the diagnostics changed, or its time came) — awaited, never timed.
 */
function fakeClock(start: number) {
  let now = start;
  const waits: { until: number; resolve: () => void }[] = [];
  let asked: (() => void) | undefined;
  const clock: SettleClock = {
    now: () => now,
    wait: (ms) =>
      new Promise<void>((resolve) => {
        waits.push({ until: now + ms, resolve });
        asked?.();
      }),
  };
  return {
    clock,
    setNow: (t: number) => {
      now = t;
    },
    /** nextWait resolves with the next wait settle asks for. */
    async nextWait() {
      while (waits.length === 0) {
        await new Promise<void>((r) => {
          asked = r;
        });
      }
      return waits.shift()!;
    },
  };
}

test('settle: diagnostics that change after the edit end the wait at once', async () => {
  const c = fakeClock(1000);
  const times: SettleTimes = { lastChange: 1000, lastDiagnostics: 900 };
  const settled = settle(1000, () => times, c.clock, RULE);
  const w = await c.nextWait();
  assert.equal(w.until, 1000 + QUIET_MS, 'waits for the quiet period at most');
  c.setNow(1030);
  times.lastDiagnostics = 1030; // the language server published
  w.resolve();
  assert.equal(await settled, 30, 'answered when the diagnostics changed, not after the quiet period');
});

test('settle: without a diagnostics change the quiet period ends the wait', async () => {
  const c = fakeClock(1000);
  const settled = settle(1000, () => ({ lastChange: 1000, lastDiagnostics: 0 }), c.clock, RULE);
  const w = await c.nextWait();
  c.setNow(w.until);
  w.resolve();
  assert.equal(await settled, QUIET_MS);
});

test('settle: never later than the cap while the document keeps changing', async () => {
  const c = fakeClock(1000);
  const times: SettleTimes = { lastChange: 1000, lastDiagnostics: 0 };
  let done = false;
  const settled = settle(1000, () => times, c.clock, RULE).finally(() => {
    done = true;
  });
  let waits = 0;
  while (!done) {
    const w = await Promise.race([c.nextWait(), settled.then(() => undefined)]);
    if (!w) {
      break;
    }
    waits++;
    c.setNow(w.until);
    times.lastChange = w.until - 1; // typing goes on: never quiet
    w.resolve();
  }
  assert.equal(await settled, CAP_MS);
  assert.ok(waits > 1, `the cap, not one quiet period, ended it (${waits} waits)`);
});
