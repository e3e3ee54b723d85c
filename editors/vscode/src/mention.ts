// The pure parts of @-mention completion in the agent's input: finding the
// @word being typed, ranking workspace paths against it, and putting the
// chosen path in its place. The server expands the mentions (internal/agent/mentions.go);
// the rules here follow its pattern so that what is completed is what it reads.
// Pure: no VS Code imports.

/** Mention is an @word in the input: value[start, end) is "@" + partial. */
export interface Mention {
  start: number;
  end: number;
  partial: string;
}

// A mention starts the input or follows a space or an opening bracket or
// quote, and its path stops at these characters (the server's mentionRE).
const BEFORE = /[\s(\[{"']/;
const STOP = /[\s@()\[\]{}"'<>,;]/;

/**
 * mentionAt returns the @word the caret is in or just after, or undefined
 * when the word under the caret is not a mention.
 */
export function mentionAt(value: string, caret: number): Mention | undefined {
  caret = Math.max(0, Math.min(caret, value.length));
  let start = caret;
  while (start > 0 && !STOP.test(value[start - 1])) {
    start--;
  }
  // start is now just after a stop character (or 0): the mention's "@" is there.
  if (start === 0 || value[start - 1] !== '@') {
    return undefined;
  }
  const at = start - 1;
  if (at > 0 && !BEFORE.test(value[at - 1])) {
    return undefined; // an e-mail address, or text glued to the @
  }
  let end = caret;
  while (end < value.length && !STOP.test(value[end])) {
    end++;
  }
  return { start: at, end, partial: value.slice(start, caret) };
}

/**
 * replaceMention puts "@" + path and one space in the mention's place, so
 * the next word starts a new token (and the completion list closes).
 * The returned caret is just after the space.
 */
export function replaceMention(value: string, m: Mention, path: string): { value: string; caret: number } {
  let rest = value.slice(m.end);
  if (rest.startsWith(' ')) {
    rest = rest.slice(1);
  }
  const head = value.slice(0, m.start) + '@' + path + ' ';
  return { value: head + rest, caret: head.length };
}

/**
 * mentionable reports whether the server would read path whole as a
 * mention: no character that ends one, no trailing punctuation (it is
 * trimmed), and nothing under .catbuddy/, which the agent never reads.
 */
export function mentionable(path: string): boolean {
  return path !== '' && !STOP.test(path) && !/[.:!?]$/.test(path) && !/(^|\/)\.catbuddy(\/|$)/.test(path);
}

/**
 * fuzzyScore scores path against the typed part: undefined unless every
 * character of query occurs in path in order (ignoring case); higher is
 * better. A match in the file name beats one spread over directories, a
 * contiguous one beats a scattered one, and shorter paths win ties.
 */
export function fuzzyScore(query: string, path: string): number | undefined {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  const base = p.slice(p.lastIndexOf('/') + 1);
  let score = -path.length;
  if (q === '') {
    return score;
  }
  if (base.startsWith(q)) {
    score += 3000;
  } else if (base.includes(q)) {
    score += 2000;
  } else if (p.includes(q)) {
    score += 1000;
  }
  let i = 0;
  let prev = -2;
  for (let j = 0; j < p.length && i < q.length; j++) {
    if (p[j] === q[i]) {
      score += j === prev + 1 ? 10 : 1;
      prev = j;
      i++;
    }
  }
  return i === q.length ? score : undefined;
}

/**
 * rankPaths returns at most limit paths matching query, best first (ties by
 * path). It keeps only the best limit while scanning, so a keystroke over
 * a large workspace costs no sort of every match.
 */
export function rankPaths(query: string, paths: readonly string[], limit: number): string[] {
  const best: { path: string; score: number }[] = [];
  const before = (a: { path: string; score: number }, b: { path: string; score: number }) =>
    a.score > b.score || (a.score === b.score && a.path < b.path);
  for (const path of paths) {
    const score = fuzzyScore(query, path);
    if (score === undefined) {
      continue;
    }
    const e = { path, score };
    if (best.length === limit && !before(e, best[best.length - 1])) {
      continue;
    }
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(best[mid], e)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    best.splice(lo, 0, e);
    if (best.length > limit) {
      best.pop();
    }
  }
  return best.map((e) => e.path);
}

/**
 * excludeGlob is the exclude pattern for listing mentionable files: the
 * patterns turned on in files.exclude and search.exclude, as Quick Open
 * uses them. Passing any exclude to findFiles drops its default
 * (files.exclude alone), so both are given here; without search.exclude
 * a JavaScript project's node_modules would fill the listing's cap before
 * the user's own files. Entries that are not simply true (conditions on
 * sibling files) are left out, as findFiles cannot evaluate them, and so
 * are patterns with braces of their own, which cannot be nested in the
 * one brace group findFiles takes: either only lists more files.
 */
export function excludeGlob(...settings: (Record<string, unknown> | undefined)[]): string | undefined {
  const globs = new Set<string>();
  for (const s of settings) {
    for (const [glob, on] of Object.entries(s ?? {})) {
      if (on === true && !/[{}]/.test(glob)) globs.add(glob);
    }
  }
  if (globs.size === 0) return undefined;
  return globs.size === 1 ? [...globs][0] : `{${[...globs].join(',')}}`;
}
