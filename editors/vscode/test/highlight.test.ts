import assert from 'node:assert/strict';
import { test } from 'node:test';
import { language, Token, tokenize } from '../src/highlight';
import { highlighted, render } from '../src/markdown';

/** coloured lists the non-text tokens as "kind:text". */
const coloured = (ts: Token[]) => ts.filter((t) => t.kind !== 'text').map((t) => `${t.kind}:${t.text}`);

test('highlight: Go keywords, strings, raw strings, comments and numbers', () => {
  const code = 'package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\ts := "a \\"quoted\\" b" + `raw\\n` /* c */\n\treturn a + b*0x1F + 2.5e3\n}';
  const ts = tokenize(code, 'go');
  assert.equal(ts.map((t) => t.text).join(''), code, 'the tokens join to the code');
  assert.deepEqual(coloured(ts), [
    'keyword:package',
    'comment:// Add adds.',
    'keyword:func',
    'string:"a \\"quoted\\" b"',
    'string:`raw\\n`',
    'comment:/* c */',
    'keyword:return',
    'number:0x1F',
    'number:2.5e3',
  ]);
});

test('highlight: TypeScript template literals span lines; identifiers with digits are not numbers', () => {
  const ts = tokenize("const x1 = `a\nb`; // done\nlet y = 'it\\'s' ?? null", 'ts');
  assert.deepEqual(coloured(ts), ['keyword:const', 'string:`a\nb`', 'comment:// done', 'keyword:let', "string:'it\\'s'", 'keyword:null']);
});

test('highlight: Python triple quotes and # comments; shell # only at a word start', () => {
  assert.deepEqual(coloured(tokenize('def f():\n    """doc\n    more"""\n    return 42  # answer', 'python')), [
    'keyword:def',
    'string:"""doc\n    more"""',
    'keyword:return',
    'number:42',
    'comment:# answer',
  ]);
  assert.deepEqual(coloured(tokenize('echo $# a#b # note\nif true; then fi', 'bash')), ['comment:# note', 'keyword:if', 'keyword:then', 'keyword:fi']);
});

test('highlight: unclosed strings and comments end with the line or the code; unknown languages stay plain', () => {
  assert.deepEqual(coloured(tokenize('x := "open\ny := 1', 'go')), ['string:"open', 'number:1']);
  assert.deepEqual(coloured(tokenize('a /* never closed\nreturn', 'go')), ['comment:/* never closed\nreturn']);
  assert.deepEqual(tokenize('if x { return }', 'brainfuck'), [{ kind: 'text', text: 'if x { return }' }]);
  assert.deepEqual(tokenize('', 'go'), []);
  for (const [tag, want] of [['golang', 'go'], ['TSX', 'js'], ['py', 'python'], ['c++', 'c'], ['yml', 'yaml'], ['', undefined], ['toString', undefined]] as const) {
    assert.equal(language(tag), want, `language(${JSON.stringify(tag)})`);
  }
});

test('highlight: the HTML is escaped inside and outside the coloured spans', () => {
  const html = highlighted('s := "<img src=x onerror=alert(1)>" // </code><script>', 'go');
  assert.equal(html, 's := <span class="tk-string">&quot;&lt;img src=x onerror=alert(1)&gt;&quot;</span> <span class="tk-comment">// &lt;/code&gt;&lt;script&gt;</span>');
  assert.match(render('```rust\nfn main() { let n = 3; }\n```'), /<pre data-lang="rust"><code><span class="tk-keyword">fn<\/span> main\(\) \{ <span class="tk-keyword">let<\/span> n = <span class="tk-number">3<\/span>; \}<\/code><\/pre>/);
});

test('highlight: any input gives tokens that join to it', () => {
  const alphabet = ['"', "'", '`', '\\', '/', '*', '#', '-', '[', ']', '\n', ' ', 'a', 'if', '0', '.', 'x', 'e', '"""'];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const lang of ['go', 'js', 'python', 'rust', 'c', 'shell', 'lua', 'json', 'yaml']) {
    for (let n = 0; n < 200; n++) {
      const code = Array.from({ length: Math.floor(rnd() * 30) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const ts = tokenize(code, lang);
      assert.equal(ts.map((t) => t.text).join(''), code, `${lang}: ${JSON.stringify(code)}`);
      assert.ok(ts.every((t) => t.text !== ''), `${lang}: no empty token for ${JSON.stringify(code)}`);
    }
  }
});
