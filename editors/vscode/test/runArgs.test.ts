import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customCommands, needsInput, pickItems, serverArgs } from '../src/runArgs';

const range = { start: { line: 3, character: 0 }, end: { line: 3, character: 13 } };

test('serverArgs: recognises a code action argument and nothing else', () => {
  const a = { uri: 'file:///w/calc.go', range, diagnostics: [] };
  assert.deepEqual(serverArgs(a), a);
  assert.equal(serverArgs(undefined), undefined);
  assert.equal(serverArgs('fix it'), undefined);
  // What VS Code passes when a command runs from the editor context menu: the document URI object.
  assert.equal(serverArgs({ scheme: 'file', path: '/w/calc.go' }), undefined);
  assert.equal(serverArgs({ uri: 'file:///w/calc.go', range: { start: { line: 1 }, end: { line: 2, character: 0 } } }), undefined);
});

test('needsInput: ask always, custom prompts only with ${input}', () => {
  assert.equal(needsInput('ask', undefined), true);
  assert.equal(needsInput('fix', undefined), false);
  assert.equal(needsInput('tests', 'Write tests for ${selection}'), false);
  assert.equal(needsInput('rename', 'Rename ${selection} to ${input}'), true);
});

test('pickItems: the server decides which commands exist, settings give prompts, customs before built-ins', () => {
  const items = pickItems(
    [
      { id: 'fix', title: 'Agent: Fix This' },
      { id: 'explain', title: 'Agent: Explain This' },
      { id: 'ask', title: 'Agent: Ask…' },
      { id: 'tests', title: 'Agent: Write tests' },
      { id: 'project-cmd', title: '' },
    ],
    [
      { id: 'tests', title: 'Tests (settings title)', prompt: 'Write tests for ${selection}' },
      { id: 'tests', title: 'again', prompt: 'the server keeps the first: ${input}' },
      { id: 'fix', title: 'mine', prompt: 'rejected by the server: ${input}' },
      { id: 'rename', title: 'Rename', prompt: 'Rename to ${input}' },
    ],
  );
  assert.deepEqual(
    items.map((i) => [i.id, i.title, i.custom, i.prompt]),
    [
      ['tests', 'Agent: Write tests', true, 'Write tests for ${selection}'],
      ['project-cmd', 'project-cmd', true, undefined],
      ['fix', 'Agent: Fix This', false, undefined],
      ['explain', 'Agent: Explain This', false, undefined],
      ['ask', 'Agent: Ask…', false, undefined],
    ],
  );
});

test('customCommands: the prompts of the well-formed entries of the raw setting', () => {
  assert.deepEqual(customCommands([{ id: 'doc', prompt: 'p' }, { id: 'x' }, 'nope', null]), [{ id: 'doc', title: 'doc', prompt: 'p' }]);
  assert.deepEqual(customCommands({ id: 'x' }), []);
});

test('pickItems: without the server, only the built-ins appear (the server judges the custom ones)', () => {
  const items = pickItems(undefined, [{ id: 'doc', title: 'Document', prompt: 'p' }]);
  assert.deepEqual(
    items.map((i) => i.id),
    ['fix', 'explain', 'ask'],
  );
});
