// A safe subset of Markdown for tool descriptions on the catalogue page: paragraphs, headings (as bold
// lines), bullet and numbered lists, fenced and inline code, bold, italics and http(s) links. Everything is
// HTML-escaped first and only these constructs produce tags, so a description can never inject markup, attributes
// or script URLs. Hand-written: a full Markdown library would add ~100 KB to every isolate for one page feature.
import { esc } from './escape.ts';

const FENCE = /^\s*(```|~~~)/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;

/** Markdown text → HTML of the safe subset. */
export function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let para: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | undefined;
  const flushPara = () => {
    // Lines of a paragraph flow together, as in Markdown: specs hard-wrap their text, links included.
    if (para.length) out.push(`<p>${inline(para.join(' '))}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.tag}>`);
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      flushPara();
      flushList();
      const code: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]!); i++) code.push(lines[i]!);
      out.push(`<pre><code>${esc(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      flushPara();
      flushList();
      continue;
    }
    const heading = HEADING.exec(line);
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (heading) {
      flushPara();
      flushList();
      out.push(`<p><strong>${inline(heading[1]!)}</strong></p>`);
    } else if (bullet || numbered) {
      flushPara();
      const tag = bullet ? 'ul' : 'ol';
      if (list?.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
    } else if (list && /^\s{2,}\S/.test(line)) {
      // An indented line continues the list item above it.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      flushList();
      para.push(line.trim());
    }
  }
  flushPara();
  flushList();
  return out.join('');
}

/**
 * Inline constructs of one line. Code spans and links are rendered first and set aside, so emphasis never
 * reaches inside them; the rest is escaped before any tag is added.
 */
function inline(text: string): string {
  const kept: string[] = [];
  const keep = (html: string) => `\u0000${kept.push(html) - 1}\u0000`;
  const stashed = text
    .replace(/\u0000/g, '')
    .replace(/`([^`]+)`/g, (_, code: string) => keep(`<code>${esc(code)}</code>`))
    // [label](http(s)://…): the URL is checked before it becomes an attribute; anything else stays text.
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s()<>"'`]+)\)/g, (_, label: string, url: string) =>
      keep(`<a href="${esc(url)}" rel="nofollow noopener noreferrer" target="_blank">${emphasis(esc(label))}</a>`),
    );
  return emphasis(esc(stashed)).replace(/\u0000(\d+)\u0000/g, (_, n: string) => kept[Number(n)]!);
}

/** **bold**, __bold__, *italic* and _italic_ (an underscore inside a word, as in snake_case, is no emphasis). */
function emphasis(html: string): string {
  return html
    .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a?: string, b?: string) => `<strong>${a ?? b}</strong>`)
    .replace(/(^|[\s(])\*([^*\s][^*]*?)\*(?=[\s).,;:!?]|$)|(^|[\s(])_([^_\s][^_]*?)_(?=[\s).,;:!?]|$)/g, (_, p1?: string, a?: string, p2?: string, b?: string) => `${p1 ?? p2}<em>${a ?? b}</em>`);
}
