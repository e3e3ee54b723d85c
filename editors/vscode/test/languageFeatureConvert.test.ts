import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  callHierarchyItem,
  codeActions,
  documentSymbols,
  hover,
  kindMatches,
  locations,
  Range,
  symbolInformation,
  textEdits,
  workspaceEdit,
} from '../src/languageFeatureConvert';

const r = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });
// A vscode.Uri as far as the conversions see it.
const uri = (s: string) => ({ toString: () => s, fsPath: s.replace('file://', '') });
const A = 'file:///w/src/a.ts';
const B = 'file:///w/src/b.ts';

test('locations: Locations and LocationLinks become LSP Locations, at the target name, without duplicates', () => {
  const got = locations([
    { targetUri: uri(B), targetRange: r(2, 0, 4, 1), targetSelectionRange: r(2, 16, 2, 21), originSelectionRange: r(0, 9, 0, 14) },
    { uri: uri(A), range: r(5, 2, 5, 7) },
    // a second provider for the language answers the same place
    { uri: uri(B), range: r(2, 16, 2, 21) },
    { targetUri: uri(A), targetRange: r(8, 0, 9, 1) },
  ]);
  assert.deepEqual(got, [
    { uri: B, range: r(2, 16, 2, 21) },
    { uri: A, range: r(5, 2, 5, 7) },
    { uri: A, range: r(8, 0, 9, 1) },
  ]);
  assert.deepEqual(locations(undefined), []);
});

test('locations: the range is copied into plain objects (VS Code Positions carry methods)', () => {
  const p = (line: number, character: number) => ({ line, character, translate: () => null });
  const [got] = locations([{ uri: uri(A), range: { start: p(1, 2), end: p(1, 3) } }]);
  assert.deepEqual(Object.keys(got.range.start), ['line', 'character']);
  assert.equal(JSON.stringify(got), `{"uri":"${A}","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}`);
});

test('hover: every provider\'s contents as one markdown text; MarkedString code blocks fenced; null when empty', () => {
  const got = hover([
    { contents: [{ value: '```typescript\nfunction greet(name: string): string\n```' }, { value: 'Greets **name**.' }], range: r(3, 9, 3, 14) },
    { contents: [{ language: 'ts', value: 'const x = 1' }, 'plain', { value: '  ' }] },
  ]);
  assert.deepEqual(got, {
    contents: {
      kind: 'markdown',
      value: '```typescript\nfunction greet(name: string): string\n```\n\nGreets **name**.\n\n```ts\nconst x = 1\n```\n\nplain',
    },
    range: r(3, 9, 3, 14),
  });
  assert.equal(hover([]), null);
  assert.equal(hover([{ contents: [{ value: '' }] }]), null);
  assert.equal(hover(undefined), null);
});

test('documentSymbols: a hierarchy stays a hierarchy, kinds become 1-based', () => {
  // VS Code: Class = 4, Method = 5, Function = 11; LSP: 5, 6, 12.
  const got = documentSymbols([
    {
      name: 'Greeter',
      detail: '',
      kind: 4,
      range: r(0, 0, 6, 1),
      selectionRange: r(0, 13, 0, 20),
      children: [{ name: 'hello', detail: '(x)', kind: 5, tags: [1], range: r(1, 2, 3, 3), selectionRange: r(1, 2, 1, 7), children: [] }],
    },
    { name: 'greet', kind: 11, range: r(8, 0, 10, 1), selectionRange: r(8, 16, 8, 21), children: [] },
  ]);
  assert.deepEqual(got, [
    {
      name: 'Greeter',
      kind: 5,
      range: r(0, 0, 6, 1),
      selectionRange: r(0, 13, 0, 20),
      children: [{ name: 'hello', detail: '(x)', kind: 6, tags: [1], range: r(1, 2, 3, 3), selectionRange: r(1, 2, 1, 7) }],
    },
    { name: 'greet', kind: 12, range: r(8, 0, 10, 1), selectionRange: r(8, 16, 8, 21) },
  ]);
});

test('documentSymbols: a provider of flat SymbolInformations yields SymbolInformations', () => {
  const got = documentSymbols([{ name: 'Add', containerName: 'calc', kind: 11, location: { uri: uri(A), range: r(3, 0, 5, 1) } }]);
  assert.deepEqual(got, [{ name: 'Add', kind: 12, containerName: 'calc', location: { uri: A, range: r(3, 0, 5, 1) } }]);
  assert.deepEqual(documentSymbols(undefined), []);
});

test('symbolInformation: workspace symbols', () => {
  assert.deepEqual(symbolInformation({ name: 'greet', kind: 11, containerName: '', location: { uri: uri(B), range: r(2, 0, 4, 1) } }), {
    name: 'greet',
    kind: 12,
    location: { uri: B, range: r(2, 0, 4, 1) },
  });
});

test('callHierarchyItem: LSP shape, data carried for the calls request', () => {
  const got = callHierarchyItem({ name: 'greet', kind: 11, detail: 'src/b.ts', uri: uri(B), range: r(2, 0, 4, 1), selectionRange: r(2, 16, 2, 21) }, { catbuddyItem: 'vscode-1' });
  assert.deepEqual(got, { name: 'greet', kind: 12, detail: 'src/b.ts', uri: B, range: r(2, 0, 4, 1), selectionRange: r(2, 16, 2, 21), data: { catbuddyItem: 'vscode-1' } });
});

test('workspaceEdit and textEdits: edits per document, in the changes form', () => {
  const got = workspaceEdit([
    [uri(B), [{ range: r(2, 16, 2, 21), newText: 'welcome' }]],
    [uri(A), [{ range: r(0, 9, 0, 14), newText: 'welcome' }, { range: r(3, 9, 3, 14), newText: 'welcome' }]],
    [uri(B), [{ range: r(7, 1, 7, 6), newText: 'welcome' }]],
  ]);
  assert.deepEqual(got, {
    changes: {
      [B]: [
        { range: r(2, 16, 2, 21), newText: 'welcome' },
        { range: r(7, 1, 7, 6), newText: 'welcome' },
      ],
      [A]: [
        { range: r(0, 9, 0, 14), newText: 'welcome' },
        { range: r(3, 9, 3, 14), newText: 'welcome' },
      ],
    },
  });
  assert.deepEqual(workspaceEdit([]), { changes: {} });
  assert.deepEqual(textEdits([{ range: r(0, 0, 0, 2), newText: '\t' }]), [{ range: r(0, 0, 0, 2), newText: '\t' }]);
  assert.deepEqual(textEdits(undefined), []);
});

test('codeActions: cb-ls\'s own actions are left out, edits converted, commands without their arguments', () => {
  const diag = { range: r(1, 0, 1, 3), message: 'unused', severity: 1 };
  const got = codeActions(
    [
      { title: 'Agent: Fix This', kind: { value: 'quickfix' }, command: { title: 'Agent: Fix This', command: 'catbuddy.fix', arguments: [{ uri: A }] } },
      {
        title: "Remove unused declaration for: 'x'",
        kind: { value: 'quickfix' },
        diagnostics: [diag],
        isPreferred: true,
        edit: { entries: () => [[uri(A), [{ range: r(1, 0, 2, 0), newText: '' }]]] },
      },
      { title: 'Organize Imports', kind: { value: 'source.organizeImports' }, command: { title: 'Organize Imports', command: '_typescript.organizeImports', arguments: [{ cyclic: true }] } },
      { title: 'Extract to function', kind: { value: 'refactor.extract.function' }, disabled: { reason: 'Select an expression' } },
      { title: 'Run a thing', command: 'ext.run', arguments: [1] },
      { title: 'Agent: Explain', command: 'catbuddy.run' },
    ],
    undefined,
    (d) => ({ converted: (d as typeof diag).message }),
  );
  assert.deepEqual(got, [
    {
      title: "Remove unused declaration for: 'x'",
      kind: 'quickfix',
      diagnostics: [{ converted: 'unused' }],
      isPreferred: true,
      edit: { changes: { [A]: [{ range: r(1, 0, 2, 0), newText: '' }] } },
    },
    { title: 'Organize Imports', kind: 'source.organizeImports', command: { title: 'Organize Imports', command: '_typescript.organizeImports' } },
    { title: 'Extract to function', kind: 'refactor.extract.function', disabled: { reason: 'Select an expression' } },
    { title: 'Run a thing', command: { title: 'Run a thing', command: 'ext.run' } },
  ]);
});

test('codeActions: only keeps the kinds asked for and those below them', () => {
  const items = [
    { title: 'q', kind: { value: 'quickfix' } },
    { title: 'x', kind: { value: 'refactor.extract.constant' } },
    { title: 'r', kind: { value: 'refactorx' } },
    { title: 'none' },
    { title: 'cmd', command: 'ext.run' },
  ];
  assert.deepEqual(
    codeActions(items, ['refactor.extract', 'source'], (d) => d).map((a) => a.title),
    ['x'],
  );
  assert.deepEqual(codeActions(items, [], (d) => d).map((a) => a.title), ['q', 'x', 'r', 'none', 'cmd']);
  assert.equal(kindMatches('refactor', 'refactor'), true);
  assert.equal(kindMatches('refactorx', 'refactor'), false);
  assert.equal(kindMatches(undefined, 'refactor'), false);
});
