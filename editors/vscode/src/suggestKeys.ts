// What a key does in a text box while its suggestion list is open (the chat
// view's @-path list): Up and Down move the highlight round the list, Tab
// and Enter take the highlighted entry, Escape closes the list. Any other
// key, and Shift+Enter (a new line), belongs to the text box.
// Pure: no DOM, no VS Code imports.

/** SuggestAction is what the text box does with a key while its list is open. */
export type SuggestAction = { kind: 'move'; active: number } | { kind: 'accept' } | { kind: 'close' };

/** SuggestKey is the part of a keyboard event the list looks at. */
export interface SuggestKey {
  key: string;
  shiftKey?: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  isComposing?: boolean;
}

/**
 * suggestKey returns what key does to a list of count entries whose
 * highlighted one is active, or undefined when the key is the text box's.
 */
export function suggestKey(e: SuggestKey, active: number, count: number): SuggestAction | undefined {
  if (count === 0 || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) {
    return undefined;
  }
  switch (e.key) {
    case 'ArrowDown':
      return { kind: 'move', active: (active + 1) % count };
    case 'ArrowUp':
      return { kind: 'move', active: (active - 1 + count) % count };
    case 'Tab':
    case 'Enter':
      return e.shiftKey ? undefined : { kind: 'accept' };
    case 'Escape':
      return { kind: 'close' };
  }
  return undefined;
}
