import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Level, parseServerLogLine, pipeServerLog } from '../src/serverLog';

test('slog lines keep their level and lose the time and level fields', () => {
  assert.deepEqual(parseServerLogLine('time=2026-12-02T18:07:40.674Z level=INFO msg=initialized client="" roots=[/w]'), {
    level: 'info',
    text: 'msg=initialized client="" roots=[/w]',
  });
  assert.equal(parseServerLogLine('time=t level=WARN msg="connection did not drain"').level, 'warn');
  assert.equal(parseServerLogLine('time=t level=DEBUG msg=x').level, 'debug');
  assert.equal(parseServerLogLine('time=t level=ERROR msg="run failed"').level, 'error');
  assert.equal(parseServerLogLine('time=t level=DEBUG-4 msg=x').level, 'debug');
});

test('what is not slog (a panic) is an error', () => {
  assert.deepEqual(parseServerLogLine('panic: runtime error: index out of range'), { level: 'error', text: 'panic: runtime error: index out of range' });
});

test('pipeServerLog writes each line at its level', async () => {
  const got: [Level, string][] = [];
  const at = (l: Level) => (s: string) => {
    got.push([l, s]);
  };
  const sink = { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const input = new PassThrough();
  pipeServerLog(input, sink);
  input.end('time=t level=INFO msg=initialized\n\ntime=t level=WARN msg=slow\ngoroutine 1 [running]:\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, [
    ['info', 'msg=initialized'],
    ['warn', 'msg=slow'],
    ['error', 'goroutine 1 [running]:'],
  ]);
});
