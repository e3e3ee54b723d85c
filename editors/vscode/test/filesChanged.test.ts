import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptMessage } from '../src/filesChanged';

const files = [
  { uri: 'file:///w/calc.go', path: 'calc.go', kind: 'changed' },
  { uri: 'file:///w/notes.txt', path: 'notes.txt', kind: 'changed' },
  { uri: 'file:///w/old.txt', path: 'old.txt', kind: 'deleted' },
  { uri: 'file:///w/new.txt', path: 'new.txt', kind: 'created' },
];

test('keptMessage names the dirty documents a command changed or deleted', () => {
  const docs = [
    { uri: 'file:///w/calc.go', isDirty: true },
    { uri: 'file:///w/notes.txt', isDirty: false },
    { uri: 'file:///w/old.txt', isDirty: true },
  ];
  assert.equal(
    keptMessage('make gen', files, docs),
    '`make gen` changed calc.go on disk; your unsaved changes are kept (File: Revert File loads the version on disk). ' +
      '`make gen` deleted old.txt; the editor keeps your text (Save writes it back).',
  );
});

test('keptMessage is silent when no open document has unsaved changes', () => {
  assert.equal(keptMessage('make gen', files, [{ uri: 'file:///w/calc.go', isDirty: false }]), undefined);
  assert.equal(keptMessage(undefined, [], [{ uri: 'file:///w/calc.go', isDirty: true }]), undefined);
  assert.match(keptMessage(undefined, files.slice(0, 1), [{ uri: 'file:///w/calc.go', isDirty: true }]) ?? '', /^A command changed calc\.go/);
});
