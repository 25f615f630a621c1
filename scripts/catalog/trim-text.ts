// Description text for tools and schemas: specs write HTML and long prose; clients show plain, bounded text.

const HTML_TAG = /<\/?(p|br|code|pre|strong|em|b|i|ul|ol|li|span|div|a)(\s[^<>]*)?\/?>/gi;
const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** Plain-ish text: common HTML tags removed (Stripe writes <p>…</p>), whitespace tidied, cut to `max` chars at a word. */
export function trimText(s: string, max: number): string {
  s = s.replace(/\r\n?/g, '\n');
  if (s.includes('<')) {
    s = s
      .replace(/<\/p>\s*<p>/gi, '\n\n')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<li>/gi, '\n- ')
      .replace(HTML_TAG, '')
      .replace(/&(lt|gt|amp|quot|#39|nbsp);/g, (m) => ENTITIES[m] ?? m);
  }
  s = s.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  const ws = cut.search(/\s\S*$/);
  if (ws > max * 0.6) cut = cut.slice(0, ws);
  return cut.trimEnd() + '…';
}
