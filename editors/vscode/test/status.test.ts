import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusLines } from '../src/status';

test('statusLines: each language server cb-ls runs, with its memory and the sum', () => {
  assert.deepEqual(statusLines({
    version: 'v1.2.3',
    languageServers: [
      { server: 'gopls', pid: 42, rss: 162_400_000, runView: true, text: 'gopls (pid 42): 162.4 MB resident (run view)' },
      { server: 'pyright', pid: 43, rss: 80_000_000, runView: false, text: 'pyright (pid 43): 80.0 MB resident' },
    ],
  }), [
    'cb-ls v1.2.3: 2 language servers of its own, 242.4 MB resident in all',
    '  gopls (pid 42): 162.4 MB resident (run view)',
    '  pyright (pid 43): 80.0 MB resident',
  ]);
});

test('statusLines: none running, memory unknown, no answer', () => {
  assert.deepEqual(statusLines({ version: 'dev', languageServers: [] }), ['cb-ls dev: no language servers of its own running']);
  assert.deepEqual(statusLines({ version: 'dev', languageServers: [{ server: 'gopls', pid: 7, rss: -1, runView: false, text: 'gopls (pid 7): memory unknown' }] }),
    ['cb-ls dev: 1 language server of its own', '  gopls (pid 7): memory unknown']);
  assert.deepEqual(statusLines(undefined), ['cb-ls (version unknown): no language servers of its own running']);
});
