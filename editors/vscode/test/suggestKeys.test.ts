import assert from 'node:assert/strict';
import { test } from 'node:test';
import { suggestKey } from '../src/suggestKeys';

test('suggestKey: Up and Down move round the list', () => {
  assert.deepEqual(suggestKey({ key: 'ArrowDown' }, 0, 3), { kind: 'move', active: 1 });
  assert.deepEqual(suggestKey({ key: 'ArrowDown' }, 2, 3), { kind: 'move', active: 0 }, 'past the last: the first');
  assert.deepEqual(suggestKey({ key: 'ArrowUp' }, 0, 3), { kind: 'move', active: 2 }, 'before the first: the last');
  assert.deepEqual(suggestKey({ key: 'ArrowUp' }, 2, 3), { kind: 'move', active: 1 });
  assert.deepEqual(suggestKey({ key: 'ArrowDown' }, 0, 1), { kind: 'move', active: 0 });
});

test('suggestKey: Tab and Enter accept, Escape closes', () => {
  assert.deepEqual(suggestKey({ key: 'Tab' }, 1, 3), { kind: 'accept' });
  assert.deepEqual(suggestKey({ key: 'Enter' }, 0, 3), { kind: 'accept' });
  assert.deepEqual(suggestKey({ key: 'Escape' }, 0, 3), { kind: 'close' });
});

test('suggestKey: other keys, modified keys, IME input and an empty list are the text box\'s', () => {
  assert.equal(suggestKey({ key: 'a' }, 0, 3), undefined);
  assert.equal(suggestKey({ key: 'ArrowLeft' }, 0, 3), undefined);
  assert.equal(suggestKey({ key: 'Enter', shiftKey: true }, 0, 3), undefined, 'Shift+Enter is a new line');
  assert.equal(suggestKey({ key: 'Tab', shiftKey: true }, 0, 3), undefined, 'Shift+Tab moves the focus back');
  assert.equal(suggestKey({ key: 'Enter', ctrlKey: true }, 0, 3), undefined);
  assert.equal(suggestKey({ key: 'ArrowDown', altKey: true }, 0, 3), undefined);
  assert.equal(suggestKey({ key: 'ArrowDown', metaKey: true }, 0, 3), undefined);
  assert.equal(suggestKey({ key: 'Enter', isComposing: true }, 0, 3), undefined, 'Enter ends the composition');
  assert.equal(suggestKey({ key: 'Enter' }, 0, 0), undefined, 'no list: Enter sends');
  assert.equal(suggestKey({ key: 'Escape' }, 0, 0), undefined);
});
