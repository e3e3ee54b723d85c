// A small markdown renderer for the chat view: the subset models write
// (paragraphs, headings, lists, quotes, fenced code, inline code, bold,
// italics, links). Safety first: every piece of text is HTML-escaped
// before any tag is added, and links become plain text with the URL as a
// tooltip, so nothing a model writes can run script, load a resource or
// navigate the webview. No dependency: the view must work offline. Code
// blocks are coloured by our own tokenizer (highlight.ts).

import { tokenize } from './highlight';

/** highlighted is a code block's HTML: each token escaped, coloured ones in a span of class tk-<kind>. */
export function highlighted(code: string, lang: string): string {
  return tokenize(code, lang)
    .map((t) => (t.kind === 'text' ? escapeHtml(t.text) : `<span class="tk-${t.kind}">${escapeHtml(t.text)}</span>`))
    .join('');
}

/** escapeHtml makes s safe as HTML text and attribute content. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** inline renders one line's inline markup; code spans are left alone. */
export function inline(s: string): string {
  const parts = s.split(/(`+[^`]*?`+)/);
  return parts
    .map((p, i) => {
      if (i % 2 === 1) {
        return `<code>${escapeHtml(p.replace(/^`+|`+$/g, ''))}</code>`;
      }
      let h = escapeHtml(p);
      // Links: the text, with the (escaped) URL as a tooltip; never a live href.
      h = h.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, text: string, url: string) => `<span class="link" title="${url}">${text}</span>`);
      h = h.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/__([^_]+)__/g, '<strong>$1</strong>');
      h = h.replace(/(^|[^*\w])\*([^*\s][^*]*?)\*(?!\w)/g, '$1<em>$2</em>').replace(/(^|[^_\w])_([^_\s][^_]*?)_(?!\w)/g, '$1<em>$2</em>');
      return h;
    })
    .join('');
}

/** render turns markdown into safe HTML. */
export function render(md: string): string {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let para: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | undefined;
  const flushPara = () => {
    if (para.length > 0) {
      out.push(`<p>${para.map(inline).join('<br>')}</p>`);
      para = [];
    }
  };
  const flushList = () => {
    if (list) {
      out.push(`<${list.tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.tag}>`);
      list = undefined;
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+.#-]*)/.exec(line);
    if (fence) {
      flushPara();
      flushList();
      const code: string[] = [];
      const close = new RegExp('^\\s*' + fence[1][0] + '{' + fence[1].length + ',}\\s*$');
      for (i++; i < lines.length && !close.test(lines[i]); i++) {
        code.push(lines[i]);
      }
      const lang = fence[2] ? ` data-lang="${escapeHtml(fence[2])}"` : '';
      out.push(`<pre${lang}><code>${highlighted(code.join('\n'), fence[2])}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (heading) {
      flushPara();
      flushList();
      const n = Math.min(heading[1].length + 2, 6); // the view's own title is the only big text
      out.push(`<h${n}>${inline(heading[2])}</h${n}>`);
    } else if (bullet || numbered) {
      flushPara();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) {
        flushList();
      }
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]);
    } else if (quote) {
      flushPara();
      flushList();
      out.push(`<blockquote>${inline(quote[1])}</blockquote>`);
    } else if (line.trim() === '') {
      flushPara();
      flushList();
    } else {
      flushList();
      para.push(line);
    }
  }
  flushPara();
  flushList();
  return out.join('\n');
}
