import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { resolveServer } from '../src/serverPath';

function tmp(t: { after: (f: () => void) => void }): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cbls-path-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

test('resolveServer: a bare name is found on PATH, skipping non-executables', (t) => {
  const a = tmp(t);
  const b = tmp(t);
  fs.writeFileSync(path.join(a, 'cb-ls'), 'not executable', { mode: 0o644 });
  fs.writeFileSync(path.join(b, 'cb-ls'), '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(resolveServer('', { PATH: [a, b].join(path.delimiter) }), { path: path.join(b, 'cb-ls') });
  assert.deepEqual(resolveServer(undefined, { PATH: b }), { path: path.join(b, 'cb-ls') });
});

test('resolveServer: missing on PATH says so', () => {
  const r = resolveServer('cb-ls', { PATH: '/nonexistent-dir' });
  assert.deepEqual(r, { error: '"cb-ls" was not found on PATH' });
});

test('resolveServer: paths are files, relative ones against the workspace', (t) => {
  const w = tmp(t);
  fs.mkdirSync(path.join(w, 'bin'));
  fs.writeFileSync(path.join(w, 'bin', 'cb-ls'), '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(resolveServer('./bin/cb-ls', {}, w), { path: path.join(w, 'bin', 'cb-ls') });
  assert.deepEqual(resolveServer(path.join(w, 'bin', 'cb-ls'), {}), { path: path.join(w, 'bin', 'cb-ls') });
  const r = resolveServer(path.join(w, 'bin'), {});
  assert.ok('error' in r && r.error.includes('is not an executable file'), JSON.stringify(r));
});
