import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, render } from '../src/markdown';

test('markdown: paragraphs, headings, lists, code', () => {
  const html = render('# Title\n\nSome **bold** and *it* and `a<b`.\n\n- one\n- two\n\n1. first\n\n```go\nif a < b {\n}\n```\n> quoted');
  assert.match(html, /<h3>Title<\/h3>/);
  assert.match(html, /<p>Some <strong>bold<\/strong> and <em>it<\/em> and <code>a&lt;b<\/code>.<\/p>/);
  assert.match(html, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
  assert.match(html, /<ol><li>first<\/li><\/ol>/);
  assert.match(html, /<pre data-lang="go"><code><span class="tk-keyword">if<\/span> a &lt; b \{\n\}<\/code><\/pre>/);
  assert.match(html, /<blockquote>quoted<\/blockquote>/);
});

test('markdown: nothing a model writes becomes live HTML', () => {
  const evil = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[x](https://example.com/" onmouseover="alert(1))',
    '```\n</code></pre><script>alert(1)</script>\n```',
    '**<b>bold</b>**',
    '`<i>`',
  ];
  for (const s of evil) {
    const html = render(s);
    // Every tag is one of ours, with only our attributes; the rest is escaped text.
    for (const tag of html.match(/<[^>]*>/g) ?? []) {
      assert.match(tag, /^<\/?(p|br|h[1-6]|ul|ol|li|pre|code|blockquote|strong|em|span)( (class|title|data-lang)="[^"<>]*")*>$/, `tag ${tag} from ${s}: ${html}`);
    }
    assert.doesNotMatch(html, /<(script|img)/i, `raw tag from ${s}: ${html}`);
  }
  assert.equal(escapeHtml(`<a href="x">'&`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
});

test('markdown: a fence left open still renders as code (a stream cut mid-block)', () => {
  assert.match(render('text\n```js\nconst a = 1;'), /<pre data-lang="js"><code><span class="tk-keyword">const<\/span> a = <span class="tk-number">1<\/span>;<\/code><\/pre>/);
});
