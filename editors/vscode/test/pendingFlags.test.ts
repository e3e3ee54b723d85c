// What the Pending Changes view and the CodeLens say of a file's flags
// before the user keeps it: runs later, not kept, a whole-file item.
// The files are as internal/lsp's catbuddy/pendingChanges sends them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fileContext, fileDescription, fileTooltip, flagged, flagNotes, hunkContext, keepTitle, wholeLabel } from '../src/pendingFlags';
import { PendingFile, PendingModel } from '../src/pendingModel';

const envrc: PendingFile = {
  uri: 'file:///p/.envrc', path: '.envrc', kind: 'created', runsLater: 'direnv loads it on cd',
  hunks: [{ id: 'h1', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, oldText: '', newText: 'export X=1\n', label: '.envrc: line 1' }],
};
const hook: PendingFile = {
  uri: 'file:///p/.git/hooks/pre-commit', path: '.git/hooks/pre-commit', kind: 'created',
  runsLater: 'git runs its hooks and reads its config (core.fsmonitor, filters) on the next git command',
  keepRefused: 'not kept: cb-ls never writes into a .git directory (git runs its hooks and config); discard it, or make the change yourself',
  hunks: [{ id: 'h2', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, oldText: '', newText: '#!/bin/sh\n', label: 'pre-commit: line 1' }],
};
const big: PendingFile = {
  uri: 'file:///p/big.bin', path: 'big.bin', kind: 'created', whole: true,
  hunks: [{ id: 'h3', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, oldText: '', newText: '', label: 'big.bin: 2.0 GB, whole file' }],
};
const fifo: PendingFile = {
  uri: 'file:///p/pipe', path: 'pipe', kind: 'created', whole: true, keepRefused: 'a FIFO',
  hunks: [{ id: 'h4', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, oldText: '', newText: '', label: 'pipe: a FIFO, whole file' }],
};

test('pendingFlags: a file that runs later is marked and says why, in its row and on Keep', () => {
  assert.equal(flagged(envrc), true);
  assert.equal(fileDescription(envrc, 1, 0), '+1 −0 · runs later: direnv loads it on cd');
  assert.match(fileTooltip(envrc), /⚠ runs later: direnv loads it on cd/);
  assert.equal(keepTitle(envrc), '⚠ Keep (runs later: direnv loads it on cd)');
  assert.equal(fileContext(envrc), 'catbuddyPendingFile');
});

test('pendingFlags: a refused file says why, once, and offers no Keep', () => {
  assert.deepEqual(flagNotes(hook), [hook.keepRefused, `runs later: ${hook.runsLater}`]);
  assert.doesNotMatch(fileDescription(hook, 1, 0), /not kept: not kept/);
  assert.match(fileTooltip(hook), /^Will not be kept — not kept: cb-ls never writes into a \.git directory/m);
  assert.match(keepTitle(hook), /^Will not be kept — not kept: cb-ls never writes/);
  // package.json offers Keep on catbuddyPendingFile and catbuddyPendingWhole only.
  assert.equal(fileContext(hook), 'catbuddyPendingFileRefused');
  assert.equal(fileContext(fifo), 'catbuddyPendingWholeRefused');
  // Nor on its hunks' rows.
  assert.equal(hunkContext(hook), 'catbuddyPendingHunkRefused');
  assert.equal(hunkContext(envrc), 'catbuddyPendingHunk');
  assert.equal(flagNotes(fifo)[0], 'not kept: a FIFO');
});

test('pendingFlags: a whole-file item shows its label, not lines, and keeps as a whole', () => {
  assert.equal(wholeLabel(big), 'big.bin: 2.0 GB, whole file');
  assert.equal(wholeLabel(envrc), undefined);
  assert.equal(fileDescription(big, 0, 0), 'big.bin: 2.0 GB, whole file');
  assert.equal(keepTitle(big, ' (r1)'), 'Keep whole file (r1)');
  assert.equal(fileContext(big), 'catbuddyPendingWhole');
  assert.equal(flagged(big), false);
});

test('pendingFlags: the model draws no line of a whole-file item, and lists it apart', () => {
  const m = new PendingModel();
  m.update({ runId: 'r1', files: [big, envrc] });
  assert.deepEqual(m.hunks(big.uri), []);
  assert.equal(m.at(big.uri, 0), undefined);
  assert.equal(m.has(big.uri), false);
  assert.deepEqual(m.wholeFiles(big.uri).map((w) => w.file.path), ['big.bin']);
  assert.deepEqual(m.wholeFiles(envrc.uri), []);
  // It still counts as one pending change, and the line-diffed file's hunks know their file's flags.
  assert.equal(m.count(), 2);
  assert.equal(m.hunks(envrc.uri)[0].file?.runsLater, 'direnv loads it on cd');
});
