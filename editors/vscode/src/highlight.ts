// A small tokenizer for the code blocks of the chat view: keywords,
// strings, comments and numbers of the languages models write most. The
// view colours the tokens with the theme's CSS variables (media/chat.css).
// It is our own on purpose: the webview loads nothing from the network and
// bundles no third-party highlighter, and a block that is not understood
// stays plain text, which is still correct. Pure: no DOM, no HTML.

/** TokenKind is what a piece of code is coloured as. */
export type TokenKind = 'keyword' | 'string' | 'comment' | 'number' | 'text';

/** Token is a piece of code; the texts of a line's tokens concatenate to the code. */
export interface Token {
  kind: TokenKind;
  text: string;
}

/** Lang describes the lexical shape of one language, as far as colouring goes. */
interface Lang {
  keywords: ReadonlySet<string>;
  /** line starts a comment to the end of the line. */
  line: string[];
  /** block comments: [open, close]. */
  block: [string, string][];
  /** quotes that open a string closed by the same quote, with backslash escapes. */
  quotes: string[];
  /** raw quotes: no escapes, may span lines (Go's backtick). */
  raw: string[];
  /** multiline: these quotes may span lines (JavaScript's template literals, Python's triple quotes). */
  multiline: string[];
  /** hashAtWord: "#" starts a comment only at the start of a word (shell: $# and a#b are not). */
  hashAtWord?: boolean;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

const C_LIKE = {
  line: ['//'],
  block: [['/*', '*/']] as [string, string][],
  quotes: ['"', "'"],
  raw: [] as string[],
  multiline: [] as string[],
};

const LANGS: Record<string, Lang> = {
  go: {
    ...C_LIKE,
    raw: ['`'],
    keywords: words(`break case chan const continue default defer else fallthrough for func go goto if import interface
      map package range return select struct switch type var true false nil iota`),
  },
  js: {
    ...C_LIKE,
    quotes: ['"', "'", '`'],
    multiline: ['`'],
    keywords: words(`abstract as async await break case catch class const continue debugger declare default delete do else
      enum export extends false finally for from function get if implements import in instanceof interface keyof let
      namespace new null of private protected public readonly return satisfies set static super switch this throw
      true try type typeof undefined var void while with yield`),
  },
  python: {
    line: ['#'],
    block: [],
    quotes: ['"""', "'''", '"', "'"],
    raw: [],
    multiline: ['"""', "'''"],
    keywords: words(`and as assert async await break class continue def del elif else except False finally for from
      global if import in is lambda match None nonlocal not or pass raise return True try while with yield self`),
  },
  rust: {
    ...C_LIKE,
    // A single quote is a lifetime as often as a char: left plain.
    quotes: ['"'],
    multiline: ['"'],
    keywords: words(`as async await break const continue crate dyn else enum extern false fn for if impl in let loop
      match mod move mut pub ref return self Self static struct super trait true type unsafe use where while`),
  },
  c: {
    ...C_LIKE,
    keywords: words(`auto bool break case catch char class const constexpr continue default delete do double else enum
      explicit extern false final float for friend goto if import inline int long namespace new noexcept null nullptr
      override package private protected public register return short signed sizeof static struct super switch
      template this throw throws true try typedef typename union unsigned using var virtual void volatile while
      abstract boolean byte extends implements instanceof interface native synchronized transient
      fun val when readonly`),
  },
  shell: {
    line: ['#'],
    block: [],
    quotes: ['"', "'"],
    raw: [],
    multiline: ['"', "'"],
    hashAtWord: true,
    keywords: words('if then else elif fi for while until do done case esac function in return local export select break continue'),
  },
  lua: {
    line: ['--'],
    block: [['--[[', ']]']],
    quotes: ['"', "'"],
    raw: [],
    multiline: [],
    keywords: words('and break do else elseif end false for function goto if in local nil not or repeat return then true until while'),
  },
  json: {
    line: ['//'],
    block: [['/*', '*/']],
    quotes: ['"'],
    raw: [],
    multiline: [],
    keywords: words('true false null'),
  },
  yaml: {
    line: ['#'],
    block: [],
    quotes: ['"', "'"],
    raw: [],
    multiline: [],
    hashAtWord: true,
    keywords: words('true false null yes no on off'),
  },
};

const ALIASES: Record<string, string> = {
  golang: 'go',
  javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', typescript: 'js', ts: 'js', tsx: 'js',
  py: 'python', python3: 'python',
  rs: 'rust',
  h: 'c', cc: 'c', cpp: 'c', 'c++': 'c', cxx: 'c', hpp: 'c', java: 'c', cs: 'c', csharp: 'c', 'c#': 'c', kotlin: 'c', kt: 'c',
  sh: 'shell', bash: 'shell', zsh: 'shell', console: 'shell', shellscript: 'shell',
  jsonc: 'json', json5: 'json',
  yml: 'yaml',
};

/** language returns the tokenizer's name for a fence's language tag, or undefined when it has none. */
export function language(tag: string): string | undefined {
  const t = tag.trim().toLowerCase();
  const name = ALIASES[t] ?? t;
  return Object.prototype.hasOwnProperty.call(LANGS, name) ? name : undefined;
}

/** identStart and ident test one UTF-16 code unit; identifiers are ASCII here (others stay text). */
function identStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}
function ident(c: number): boolean {
  return identStart(c) || isDigit(c);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
const NUMBER = /^(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*(?:\.\d[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)[A-Za-z]*/;

/**
 * tokenize splits code into tokens of the language named by tag (a fence's
 * info string: "go", "ts", "python"…). An unknown language is one text
 * token. Unclosed strings and comments end with the code (or the line, for
 * single-line strings), so any input gives tokens that join to it.
 */
export function tokenize(code: string, tag: string): Token[] {
  const name = language(tag);
  if (!name) {
    return code === '' ? [] : [{ kind: 'text', text: code }];
  }
  const lang = LANGS[name];
  const out: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind && kind === 'text') {
      last.text += text;
    } else if (text !== '') {
      out.push({ kind, text });
    }
  };
  let i = 0;
  const rest = (s: string, at: number) => code.startsWith(s, at);
  const quotes = [...lang.raw, ...lang.quotes];
  // Characters that may start a token: anything else is plain text, taken
  // in one run (most of a code block is spaces, operators and punctuation).
  const starts = new Set([...lang.line, ...lang.block.map(([open]) => open), ...quotes].map((m) => m[0]));
  const plain = (at: number) => {
    const c = code.charCodeAt(at);
    return !identStart(c) && !isDigit(c) && c !== 46 && !starts.has(code[at]);
  };
  while (i < code.length) {
    if (plain(i)) {
      let j = i + 1;
      while (j < code.length && plain(j)) {
        j++;
      }
      push('text', code.slice(i, j));
      i = j;
      continue;
    }
    const block = lang.block.find(([open]) => rest(open, i));
    if (block) {
      const end = code.indexOf(block[1], i + block[0].length);
      const stop = end < 0 ? code.length : end + block[1].length;
      push('comment', code.slice(i, stop));
      i = stop;
      continue;
    }
    const lineComment = lang.line.find((m) => rest(m, i));
    if (lineComment && !(lang.hashAtWord && lineComment === '#' && i > 0 && !/\s/.test(code[i - 1]))) {
      const end = code.indexOf('\n', i);
      const stop = end < 0 ? code.length : end;
      push('comment', code.slice(i, stop));
      i = stop;
      continue;
    }
    const quote = quotes.find((q) => rest(q, i));
    if (quote) {
      const stop = stringEnd(code, i, quote, lang.raw.includes(quote), lang.raw.includes(quote) || lang.multiline.includes(quote));
      push('string', code.slice(i, stop));
      i = stop;
      continue;
    }
    const c = code.charCodeAt(i);
    if (identStart(c)) {
      let j = i + 1;
      while (j < code.length && ident(code.charCodeAt(j))) {
        j++;
      }
      const word = code.slice(i, j);
      push(lang.keywords.has(word) ? 'keyword' : 'text', word);
      i = j;
      continue;
    }
    if ((isDigit(c) || c === 46) && !(i > 0 && ident(code.charCodeAt(i - 1)))) {
      const m = NUMBER.exec(code.slice(i, i + 64));
      if (m) {
        push('number', m[0]);
        i += m[0].length;
        continue;
      }
    }
    push('text', code[i]);
    i++;
  }
  return out;
}

/** stringEnd is the index just past the string that opens at i with quote q. */
function stringEnd(code: string, i: number, q: string, raw: boolean, multiline: boolean): number {
  let j = i + q.length;
  while (j < code.length) {
    if (!raw && code[j] === '\\') {
      j += 2;
      continue;
    }
    if (code.startsWith(q, j)) {
      return j + q.length;
    }
    if (code[j] === '\n' && !multiline) {
      return j;
    }
    j++;
  }
  return code.length;
}
