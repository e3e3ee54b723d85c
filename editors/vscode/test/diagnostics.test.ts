import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnosticsIn, Range, SourceDiagnostic, targetRange, toLsp, touches } from '../src/diagnostics';

const r = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });
const lines = ['package calc', '', 'func Add(a, b int) int {', '\treturn a - b', '}'];
const len = (l: number) => lines[l].length;

test('touches: overlap and meeting count, separation does not', () => {
  assert.equal(touches(r(1, 0, 1, 5), r(1, 3, 1, 9)), true);
  assert.equal(touches(r(1, 0, 1, 5), r(1, 5, 1, 9)), true, 'ranges that meet');
  assert.equal(touches(r(1, 0, 1, 5), r(1, 6, 1, 9)), false);
  assert.equal(touches(r(3, 4, 3, 4), r(3, 0, 3, 12)), true, 'empty diagnostic inside');
  assert.equal(touches(r(2, 0, 2, 3), r(3, 0, 3, 1)), false);
});

test('targetRange: a cursor means its whole line', () => {
  assert.deepEqual(targetRange(r(3, 2, 3, 2), len, []), r(3, 0, 3, 13));
});

test('targetRange: a cursor inside a multi-line diagnostic widens to it', () => {
  const diags = [{ range: r(2, 5, 4, 1) }, { range: r(0, 0, 0, 7) }];
  assert.deepEqual(targetRange(r(3, 2, 3, 2), len, diags), r(2, 5, 4, 1));
});

test('targetRange: a selection is kept, a whole-line selection stops at its last line', () => {
  assert.deepEqual(targetRange(r(2, 5, 3, 4), len, []), r(2, 5, 3, 4));
  assert.deepEqual(targetRange(r(2, 0, 4, 0), len, []), r(2, 0, 3, 13));
  assert.deepEqual(targetRange(r(3, 0, 3, 0), len, []), r(3, 0, 3, 13), 'cursor at column 0 is a cursor');
});

test('diagnosticsIn: every source, only those touching the range, in document order', () => {
  const diags = [
    { range: r(3, 8, 3, 13), message: 'vet: suspicious', source: 'go vet' },
    { range: r(0, 0, 0, 7), message: 'elsewhere', source: 'gopls' },
    { range: r(3, 1, 3, 7), message: 'wrong operator', source: 'staticcheck' },
    { range: r(4, 0, 4, 1), message: 'next line', source: 'gopls' },
  ];
  const got = diagnosticsIn(r(3, 0, 3, 13), diags).map((d) => d.message);
  assert.deepEqual(got, ['wrong operator', 'vet: suspicious']);
});

test('toLsp: severity is 1-based, code objects split into code and codeDescription', () => {
  const d: SourceDiagnostic = {
    range: r(3, 1, 3, 7),
    message: 'm',
    severity: 0,
    source: 'staticcheck',
    code: { value: 'SA4000', target: { toString: () => 'https://staticcheck.dev/docs/checks#SA4000' } },
    tags: [1],
  };
  assert.deepEqual(toLsp(d), {
    range: r(3, 1, 3, 7),
    message: 'm',
    severity: 1,
    source: 'staticcheck',
    code: 'SA4000',
    codeDescription: { href: 'https://staticcheck.dev/docs/checks#SA4000' },
    tags: [1],
  });
  assert.equal(toLsp({ range: r(0, 0, 0, 0), message: 'h', severity: 3 }).severity, 4);
  assert.equal(toLsp({ range: r(0, 0, 0, 0), message: 'n', severity: 1, code: 42 }).code, 42);
  assert.equal('source' in toLsp({ range: r(0, 0, 0, 0), message: 'n', severity: 1 }), false);
});
