import assert from 'node:assert/strict';
import { test } from 'node:test';
import { excludeGlob, fuzzyScore, mentionable, mentionAt, rankPaths, replaceMention } from '../src/mention';

test('mentionAt: the @word under the caret, as the server reads mentions', () => {
  const v = 'explain @calc';
  assert.deepEqual(mentionAt(v, v.length), { start: 8, end: 13, partial: 'calc' });
  assert.deepEqual(mentionAt('@', 1), { start: 0, end: 1, partial: '' });
  assert.deepEqual(mentionAt('see (@src/ma', 12), { start: 5, end: 12, partial: 'src/ma' });
  // The caret inside the word: the partial is what is before it, the mention runs to the word's end.
  assert.deepEqual(mentionAt('fix @calc.go now', 9), { start: 4, end: 12, partial: 'calc' });
  assert.equal(mentionAt('mail bob@example.com', 20), undefined, 'an e-mail address is not a mention');
  assert.equal(mentionAt('explain @calc now', 17), undefined, 'the word under the caret is "now"');
  assert.equal(mentionAt('explain @calc ', 14), undefined, 'after the space a new word starts');
  assert.equal(mentionAt('no mention', 10), undefined);
  assert.equal(mentionAt('', 0), undefined);
  assert.deepEqual(mentionAt('a @b', 99), { start: 2, end: 4, partial: 'b' }, 'a caret past the end is the end');
});

test('replaceMention: @path and one space in the mention\'s place, caret after it', () => {
  const v = 'explain @calc';
  const m = mentionAt(v, v.length)!;
  assert.deepEqual(replaceMention(v, m, 'calc.go'), { value: 'explain @calc.go ', caret: 17 });
  const w = 'fix @ca and more';
  assert.deepEqual(replaceMention(w, mentionAt(w, 7)!, 'pkg/calc.go'), { value: 'fix @pkg/calc.go and more', caret: 17 });
  assert.deepEqual(replaceMention('@', mentionAt('@', 1)!, 'go.mod'), { value: '@go.mod ', caret: 8 });
});

test('mentionable: only paths the server reads whole as one mention', () => {
  assert.equal(mentionable('src/calc.go'), true);
  assert.equal(mentionable('my notes.md'), false);
  assert.equal(mentionable('a,b.txt'), false);
  assert.equal(mentionable('weird.'), false);
  assert.equal(mentionable('.catbuddy/sessions/r1-fix.md'), false, 'the agent never reads .catbuddy/');
  assert.equal(mentionable('sub/.catbuddy/settings.json'), false);
  assert.equal(mentionable('docs/catbuddy.md'), true);
  assert.equal(mentionable(''), false);
});

test('fuzzyScore: in-order characters, file name and contiguous matches first', () => {
  assert.equal(fuzzyScore('xyz', 'calc.go'), undefined);
  assert.equal(fuzzyScore('og', 'go.mod'), undefined, 'order matters');
  assert.ok(fuzzyScore('CALC', 'calc.go')! > fuzzyScore('calc', 'calc_copy.go')!, 'case is ignored; shorter wins');
  assert.ok(fuzzyScore('calc', 'pkg/calc.go')! > fuzzyScore('calc', 'calc/x.go')!, 'the file name beats a directory');
  assert.ok(fuzzyScore('mul', 'mul.go')! > fuzzyScore('mul', 'm/u/l.go')!, 'contiguous beats scattered');
  assert.ok(fuzzyScore('', 'a.go')! > fuzzyScore('', 'longer/a.go')!, 'nothing typed: shorter first');
});

test('rankPaths: matches only, best first, at most limit', () => {
  const paths = ['docs/calc.md', 'calc_copy.go', 'go.mod', 'calc.go', 'internal/c/a/l/c.txt'];
  // calc_copy.go and docs/calc.md score alike (name starts with it, same length): by path then.
  assert.deepEqual(rankPaths('calc', paths, 50), ['calc.go', 'calc_copy.go', 'docs/calc.md', 'internal/c/a/l/c.txt']);
  assert.deepEqual(rankPaths('calc', paths, 2), ['calc.go', 'calc_copy.go']);
  assert.deepEqual(rankPaths('zz', paths, 50), []);
  assert.equal(rankPaths('', paths, 50).length, 5);
});

test('rankPaths: keeping the best few while scanning gives the order a full sort gives', () => {
  const paths: string[] = [];
  let x = 7;
  for (let i = 0; i < 2000; i++) {
    x = (x * 48271) % 2147483647;
    paths.push(`d${x % 17}/${'cal'.slice(0, x % 4)}f${x % 101}${x % 3 === 0 ? '_calc' : ''}.go`);
  }
  for (const q of ['', 'c', 'calc', 'd1f', 'zz']) {
    const all = paths
      .map((p) => ({ p, s: fuzzyScore(q, p) }))
      .filter((e): e is { p: string; s: number } => e.s !== undefined)
      .sort((a, b) => b.s - a.s || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0))
      .map((e) => e.p);
    assert.deepEqual(rankPaths(q, paths, 50), all.slice(0, 50), `query ${JSON.stringify(q)}`);
  }
});

test('excludeGlob: files.exclude and search.exclude together, as Quick Open lists files', () => {
  const files = { '**/.git': true, '**/.DS_Store': true, '**/out': false };
  const search = { '**/node_modules': true, '**/.git': true, '**/*.code-search': true };
  assert.equal(excludeGlob(files, search), '{**/.git,**/.DS_Store,**/node_modules,**/*.code-search}');
  assert.equal(excludeGlob({ '**/node_modules': true }), '**/node_modules', 'one pattern needs no braces');
  assert.equal(excludeGlob(undefined, {}), undefined, 'nothing excluded: findFiles gets no exclude');
  // A condition on a sibling file cannot be evaluated by findFiles, and a pattern with its own
  // braces cannot go inside the group: both are left out, which only lists more files.
  assert.equal(excludeGlob({ '**/*.js': { when: '$(basename).ts' }, '**/*.{log,tmp}': true, '**/dist': true }), '**/dist');
});
