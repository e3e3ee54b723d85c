import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRefusal, reportFailure } from '../src/refusal';

function recorder() {
  const seen: string[] = [];
  const log = { warn: (m: string) => void seen.push(`log.warn ${m}`), error: (m: string) => void seen.push(`log.error ${m}`) };
  const window = {
    showWarningMessage: (m: string) => (seen.push(`warning ${m}`), Promise.resolve(undefined)),
    showErrorMessage: (m: string) => (seen.push(`error ${m}`), Promise.resolve(undefined)),
  };
  return { seen, log, window: window as never };
}

// What vscode-languageclient rejects with: a ResponseError carrying the server's code.
function responseError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

test('a busy refusal (RequestFailed) is a warning, in the log and on screen', () => {
  const r = recorder();
  const busy = responseError(-32803, 'this document already has a run: Agent: Fix This, started 3s ago on calc.go');
  assert.equal(isRefusal(busy), true);
  reportFailure(r.log, r.window, 'catbuddy.fix', busy);
  assert.deepEqual(r.seen, [
    'log.warn catbuddy.fix: this document already has a run: Agent: Fix This, started 3s ago on calc.go',
    'warning cb-ls: this document already has a run: Agent: Fix This, started 3s ago on calc.go',
  ]);
});

test('any other failure stays an error', () => {
  for (const e of [responseError(-32602, 'missing runId'), responseError(-32603, 'internal'), new Error('no server'), 'a string']) {
    const r = recorder();
    assert.equal(isRefusal(e), false);
    reportFailure(r.log, r.window, 'catbuddy.reply', e);
    assert.equal(r.seen.length, 2);
    assert.match(r.seen[0], /^log\.error catbuddy\.reply: /);
    assert.match(r.seen[1], /^error cb-ls: /);
  }
});
