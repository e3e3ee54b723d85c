// A conflicted pending hunk's ways out (pendingConflict.ts): the lenses
// replace Keep by the four resolutions, the view's rows mark the conflict
// and offer them, the request is catbuddy.keep's `conflicts`, and the
// answer is worded from what the server did. The hunks are as
// internal/lsp's catbuddy/pendingChanges sends them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFLICT_ACTIONS, CONFLICT_HUNK, fileRow, hoverCommands, hoverLinks, HunkArg, hunkLenses, hunkRow, keepLeftText, resolveOutcome, resolveRequest } from '../src/pendingConflict';
import { PendingFile, PendingHunk, PendingModel } from '../src/pendingModel';
import { rowResolve } from '../src/pendingRow';

const uri = 'file:///p/calc.go';
const plain: PendingHunk = { id: 'h1', range: { start: { line: 4, character: 0 }, end: { line: 5, character: 0 } }, oldText: '\treturn a - b\n', newText: '\treturn a + b\n', label: 'calc.go: line 5' };
const conflicted: PendingHunk = { id: 'h2', range: { start: { line: 8, character: 0 }, end: { line: 8, character: 0 } }, oldText: '', newText: '// two\n', label: 'calc.go: line 9', conflict: 'your text changed the lines it touches' };
const file = (hunks: PendingHunk[], extra: Partial<PendingFile> = {}): PendingFile => ({ uri, path: 'calc.go', kind: 'changed', hunks, ...extra });
const arg: HunkArg = { uri, runId: 'r2', hunk: 'h2' };

// The commands package.json declares, with their `when` clauses.
const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));

test('pendingConflict: a conflicted hunk\'s lenses are the four resolutions and Undo, never a Keep that does nothing', () => {
  const f = file([plain, conflicted]);
  const lenses = hunkLenses({ hunk: conflicted, file: f }, arg);
  assert.deepEqual(lenses.map((l) => l.title), ['Keep Both', 'Keep Yours', "Take the Run's", 'Conflict Markers', 'Undo']);
  assert.deepEqual(lenses.map((l) => l.command), ['catbuddy.keepBoth', 'catbuddy.keepYours', 'catbuddy.takeRun', 'catbuddy.conflictMarkers', 'catbuddy.undoHunk']);
  assert.ok(lenses.every((l) => l.arguments?.[0] === arg), 'each acts on its own hunk');
  assert.ok(!lenses.some((l) => l.command === 'catbuddy.keepHunk'), 'no plain Keep');
  // With two runs pending, the first lens names the run.
  assert.equal(hunkLenses({ hunk: conflicted, file: f }, arg, ' (Agent: Document)')[0].title, 'Keep Both (Agent: Document)');
});

test('pendingConflict: a hunk without a conflict keeps Keep and Undo; a refused file\'s, a label and Undo', () => {
  const f = file([plain]);
  assert.deepEqual(hunkLenses({ hunk: plain, file: f }, arg).map((l) => [l.title, l.command]), [['Keep', 'catbuddy.keepHunk'], ['Undo', 'catbuddy.undoHunk']]);
  const refused = file([conflicted], { keepRefused: 'a FIFO' });
  const l = hunkLenses({ hunk: conflicted, file: refused }, arg);
  assert.deepEqual(l.map((x) => x.command), ['', 'catbuddy.undoHunk'], 'no resolution writes a refused file either');
  assert.match(l[0].title, /^Will not be kept — not kept: a FIFO/);
});

test('pendingConflict: the lenses follow the newest payload: resolved, back to Keep; gone, no lens', () => {
  const m = new PendingModel();
  m.update({ runId: 'r2', files: [file([conflicted])] });
  const titles = () => m.hunks(uri).flatMap((h) => hunkLenses(h, { uri, runId: h.runId, hunk: h.hunk.id }).map((l) => l.title));
  assert.deepEqual(titles(), ['Keep Both', 'Keep Yours', "Take the Run's", 'Conflict Markers', 'Undo']);
  // The user undid the typing: the server's next set has no conflict.
  m.update({ runId: 'r2', files: [file([{ ...conflicted, conflict: undefined }])] });
  assert.deepEqual(titles(), ['Keep', 'Undo']);
  // A resolution took the hunk out of the set.
  m.update({ runId: 'r2', files: [] });
  assert.deepEqual(titles(), []);
});

test('pendingConflict: the hover links offer what the lenses do, and may run them', () => {
  const links = hoverLinks({ hunk: conflicted, file: file([conflicted]) }, arg);
  const a = encodeURIComponent(JSON.stringify([arg]));
  assert.equal(links, `[Keep Both](command:catbuddy.keepBoth?${a}) · [Keep Yours](command:catbuddy.keepYours?${a}) · [Take the Run's](command:catbuddy.takeRun?${a}) · [Conflict Markers](command:catbuddy.conflictMarkers?${a}) · [Undo](command:catbuddy.undoHunk?${a})`);
  for (const m of links.matchAll(/command:([\w.]+)\?/g)) {
    assert.ok(hoverCommands.includes(m[1]), `${m[1]} is enabled in the hover`);
  }
  assert.equal(hoverLinks({ hunk: plain, file: file([plain]) }, arg), `[Keep](command:catbuddy.keepHunk?${a}) · [Undo](command:catbuddy.undoHunk?${a})`);
});

test('pendingConflict: the view marks a conflicted hunk and its file, and its row offers the resolutions', () => {
  const f = file([plain, conflicted]);
  const row = hunkRow(conflicted, f);
  assert.equal(row.conflict, true);
  assert.equal(row.contextValue, CONFLICT_HUNK);
  assert.equal(row.description, 'conflict · +1 −0  // two');
  assert.match(row.tooltip ?? '', /^Conflict: your text changed the lines it touches\nRight-click: Keep Both, Keep Yours, Take the Run's, Conflict Markers$/);
  const other = hunkRow(plain, f);
  assert.deepEqual([other.conflict, other.contextValue, other.description], [false, 'catbuddyPendingHunk', '+1 −1  return a + b']);
  assert.equal(hunkRow(conflicted, file([conflicted], { keepRefused: 'a FIFO' })).contextValue, 'catbuddyPendingHunkRefused');
  const fr = fileRow(f, 2, 1);
  assert.deepEqual([fr.description, fr.warn], ['+2 −1 · conflict', true]);
  assert.match(fr.tooltip, /⚠ conflict with your text: resolve each hunk/);
  assert.equal(fileRow(file([conflicted, { ...conflicted, id: 'h3' }]), 2, 0).description, '+2 −0 · 2 conflicts');
  assert.deepEqual([fileRow(file([plain]), 1, 1).description, fileRow(file([plain]), 1, 1).warn], ['+1 −1', false]);
});

test('pendingConflict: a row\'s resolution asks catbuddy.keep for that hunk; a click without its row asks nothing', () => {
  assert.deepEqual(rowResolve('both', { type: 'hunk', runId: 'r2', uri, hunk: 'h2' }), { runId: 'r2', hunks: ['h2'], conflicts: 'both' });
  assert.equal(rowResolve('both', undefined), undefined);
  assert.equal(rowResolve('run', { type: 'file', runId: 'r2', uri, files: [uri] }), undefined, 'a file row has no single hunk to resolve');
  assert.deepEqual(CONFLICT_ACTIONS.map((a) => resolveRequest('r2', 'h2', a.choice).conflicts), ['both', 'theirs', 'run', 'markers']);
});

test('pendingConflict: the answer is told as the server gave it: resolved, kept, left with its reason', () => {
  assert.deepEqual(resolveOutcome('h2', 'both', { kept: ['h2'], left: [], resolved: [{ hunk: 'h2', as: 'both' }] }), { level: 'info', text: "Kept both: your lines, then the run's." });
  assert.match(resolveOutcome('h2', 'theirs', { kept: [], resolved: [{ hunk: 'h2', as: 'theirs' }] }).text, /^Kept your text/);
  assert.match(resolveOutcome('h2', 'run', { resolved: [{ hunk: 'h2', as: 'run' }] }).text, /^Took the run's lines/);
  assert.match(resolveOutcome('h2', 'markers', { resolved: [{ hunk: 'h2', as: 'markers' }] }).text, /conflict markers/);
  // The server resolved otherwise than asked: said, as a warning.
  assert.deepEqual(resolveOutcome('h2', 'both', { resolved: [{ hunk: 'h2', as: 'markers' }] }).level, 'warning');
  assert.match(resolveOutcome('h2', 'both', { resolved: [{ hunk: 'h2', as: 'markers' }] }).text, /\(asked: Keep Both\)$/);
  // The conflict was gone by the keep: a plain keep.
  assert.deepEqual(resolveOutcome('h2', 'both', { kept: ['h2'], left: [], resolved: [] }), { level: 'info', text: "Kept the run's change: it was no longer in conflict." });
  const left = resolveOutcome('h2', 'run', { kept: [], left: [{ hunk: 'h2', reason: 'calc.go was deleted' }] });
  assert.deepEqual(left, { level: 'warning', text: 'Nothing resolved; the change is still pending: calc.go was deleted' });
  assert.equal(resolveOutcome('h2', 'run', { kept: [], left: [] }).level, 'error', 'an answer naming the hunk nowhere is not a success');
  assert.match(keepLeftText({ kept: [], left: [{ hunk: 'h2', reason: 'your typing touches its lines' }] }, true), /^Kept 0 hunk\(s\); left pending: your typing touches its lines — resolve a conflict with Keep Both/);
  assert.equal(keepLeftText({ kept: ['h1'], left: [{ hunk: 'h9', reason: 'gone' }] }, false), 'Kept 1 hunk(s); left pending: gone');
});

test('pendingConflict: package.json declares each resolution, shows it only on a conflicted hunk, and offers no Keep there', () => {
  const commands = new Map<string, { title: string }>(pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c]));
  const palette = new Map<string, string>(pkg.contributes.menus.commandPalette.map((c: { command: string; when: string }) => [c.command, c.when]));
  const items: { command: string; when: string; group: string }[] = pkg.contributes.menus['view/item/context'];
  const onConflictRow = (cmd: string) => items.filter((i) => i.command === cmd && /viewItem == catbuddyPendingHunkConflict\b/.test(i.when));
  for (const a of CONFLICT_ACTIONS) {
    assert.ok(commands.get(a.command)?.title, `${a.command} has a title`);
    assert.ok(commands.get(a.viewCommand)?.title, `${a.viewCommand} has a title`);
    assert.equal(palette.get(a.command), 'catbuddy.conflictAtCursor', `${a.command} is in the palette only on a conflicted hunk`);
    assert.equal(palette.get(a.viewCommand), 'false', `${a.viewCommand} needs its row`);
    assert.ok(onConflictRow(a.viewCommand).some((i) => !i.group.startsWith('inline')), `${a.viewCommand} in a conflicted row's context menu`);
    assert.ok(items.filter((i) => i.command === a.viewCommand).every((i) => /catbuddyPendingHunkConflict/.test(i.when)), `${a.viewCommand} on conflicted rows only`);
  }
  // Keep's when clause does not match a conflicted row's context; Undo's does.
  const matches = (cmd: string, ctx: string) => items.filter((i) => i.command === cmd).some((i) => {
    const eq = /viewItem == (\w+)/.exec(i.when);
    const re = /viewItem =~ \/(.+)\/$/.exec(i.when);
    return eq ? eq[1] === ctx : re ? new RegExp(re[1]).test(ctx) : false;
  });
  assert.equal(matches('catbuddy.pendingView.keepHunk', CONFLICT_HUNK), false);
  assert.equal(matches('catbuddy.pendingView.undoHunk', CONFLICT_HUNK), true);
  assert.equal(matches('catbuddy.pendingView.keepHunk', 'catbuddyPendingHunk'), true);
});
