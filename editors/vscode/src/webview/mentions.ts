/// <reference lib="dom" />
// The chat input's @-path list. While the word before the caret starts with
// "@", the page asks the extension for matching workspace files (one
// message, answered with the paths ranked by src/mentionInput.ts, as in the
// Ask input) and lists them under the input; accepting one writes
// "@relative/path " in the word's place (src/mention.ts), as the server
// reads mentions. The list is an ARIA listbox driven from the text box
// (aria-activedescendant): the focus never leaves the input.
import { mentionAt, replaceMention } from '../mention';
import { suggestKey } from '../suggestKeys';

/** Mentions is the input's list: the page forwards keys and the extension's answers to it. */
export interface Mentions {
  /** keydown handles e when the open list takes it; it returns whether it did. */
  keydown(e: KeyboardEvent): boolean;
  /** answer shows the paths the extension found for request id, unless a later one is pending. */
  answer(id: number, paths: string[]): void;
  /** close hides the list. */
  close(): void;
}

/** attachMentions makes list the @-path list of input; post sends a message to the extension. */
export function attachMentions(input: HTMLTextAreaElement, list: HTMLUListElement, post: (m: unknown) => void): Mentions {
  let seq = 0; // the latest request; older answers are dropped
  let paths: string[] = [];
  let active = 0;
  let open = false;
  let asking = false; // a request since the list was last closed: the listing is fresh

  const option = (i: number) => list.children[i] as HTMLElement | undefined;

  function highlight(i: number) {
    option(active)?.setAttribute('aria-selected', 'false');
    active = i;
    const el = option(active);
    if (el) {
      el.setAttribute('aria-selected', 'true');
      el.scrollIntoView({ block: 'nearest' });
      input.setAttribute('aria-activedescendant', el.id);
    }
  }

  function close() {
    seq++; // an answer on its way finds the list closed
    open = false;
    asking = false;
    paths = [];
    list.hidden = true;
    list.textContent = '';
    input.removeAttribute('aria-activedescendant');
  }

  function accept(i: number) {
    const path = paths[i];
    const m = mentionAt(input.value, input.selectionStart ?? input.value.length);
    close();
    if (path === undefined || !m) {
      return;
    }
    const r = replaceMention(input.value, m, path);
    input.value = r.value;
    input.setSelectionRange(r.caret, r.caret);
    input.focus();
  }

  // update asks for the files of the @word before the caret, or closes the list.
  function update() {
    const caret = input.selectionStart ?? 0;
    const m = caret === input.selectionEnd ? mentionAt(input.value, caret) : undefined;
    if (!m) {
      close();
      return;
    }
    post({ type: 'mentions', id: ++seq, partial: m.partial, fresh: !asking });
    asking = true;
  }

  function answer(id: number, found: string[]) {
    if (id !== seq) {
      return;
    }
    paths = found;
    list.textContent = '';
    if (found.length === 0) {
      open = false;
      list.hidden = true;
      input.removeAttribute('aria-activedescendant');
      return;
    }
    found.forEach((path, i) => {
      const li = document.createElement('li');
      li.id = `mention-${i}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', 'false');
      li.title = path;
      const slash = path.lastIndexOf('/');
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = path.slice(slash + 1);
      li.append(name);
      if (slash > 0) {
        const dir = document.createElement('span');
        dir.className = 'dir';
        dir.textContent = path.slice(0, slash);
        li.append(dir);
      }
      // mousedown, not click: the input keeps the focus (and its caret).
      li.addEventListener('mousedown', (e) => {
        e.preventDefault();
        accept(i);
      });
      list.append(li);
    });
    open = true;
    list.hidden = false;
    active = 0;
    highlight(0);
  }

  input.addEventListener('input', update);
  input.addEventListener('click', update);
  input.addEventListener('keyup', (e) => {
    if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) {
      update();
    }
  });
  input.addEventListener('blur', close);

  return {
    keydown(e) {
      const a = open ? suggestKey(e, active, paths.length) : undefined;
      if (!a) {
        return false;
      }
      e.preventDefault();
      e.stopPropagation();
      if (a.kind === 'move') {
        highlight(a.active);
      } else if (a.kind === 'accept') {
        accept(active);
      } else {
        close();
      }
      return true;
    },
    answer,
    close,
  };
}
