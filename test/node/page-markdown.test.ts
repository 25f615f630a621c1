// The catalogue page's Markdown subset (src/page/markdown.ts): what renders, and that nothing else can.
import { describe, expect, it } from 'vitest';
import { markdownToHtml } from '../../src/page/markdown.ts';

describe('markdownToHtml', () => {
  it('renders the subset tool descriptions use', () => {
    expect(markdownToHtml('Lists the **public** repos of a user.\n\nSee [the docs](https://docs.github.com/rest) and `per_page`.')).toBe(
      '<p>Lists the <strong>public</strong> repos of a user.</p><p>See <a href="https://docs.github.com/rest" rel="nofollow noopener noreferrer" target="_blank">the docs</a> and <code>per_page</code>.</p>',
    );
    expect(markdownToHtml('Options:\n- *draft*: not yet\n- `open`\n\n1. first\n2. second')).toBe(
      '<p>Options:</p><ul><li><em>draft</em>: not yet</li><li><code>open</code></li></ul><ol><li>first</li><li>second</li></ol>',
    );
    expect(markdownToHtml('## Scopes\nline one\nline two')).toBe('<p><strong>Scopes</strong></p><p>line one line two</p>');
    // A link wrapped over two lines, as GitHub's descriptions are.
    expect(markdownToHtml('see [Create or\nupdate a secret](https://docs.github.com/x#y).')).toBe(
      '<p>see <a href="https://docs.github.com/x#y" rel="nofollow noopener noreferrer" target="_blank">Create or update a secret</a>.</p>',
    );
    expect(markdownToHtml('```json\n{"a": "<b>"}\n```')).toBe('<pre><code>{&quot;a&quot;: &quot;&lt;b&gt;&quot;}</code></pre>');
    // snake_case names stay as they are.
    expect(markdownToHtml('the snake_case_name field')).toBe('<p>the snake_case_name field</p>');
  });

  it('never lets a description inject markup, attributes or script URLs', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[click](javascript:alert(1))',
      '[click](data:text/html,<script>alert(1)</script>)',
      '[x](https://a.example/"onmouseover="alert(1))',
      "[x](https://a.example/'onmouseover='alert(1))",
      '`</code><script>alert(1)</script>`',
      '**<svg onload=alert(1)>**',
      '[<img src=x onerror=alert(1)>](https://a.example/)',
      '\u0000 0 \u0000 [x](https://a.example/)',
    ];
    for (const text of hostile) {
      const html = markdownToHtml(text);
      // The only tags are the subset's own, and the only attributes are href, rel and target on <a>.
      for (const tag of html.matchAll(/<\/?([a-z0-9]+)([^>]*)>/gi)) {
        expect(['p', 'strong', 'em', 'code', 'pre', 'a', 'ul', 'ol', 'li'], text).toContain(tag[1]!.toLowerCase());
        const attrs = tag[2]!.trim();
        if (attrs) expect(attrs, text).toMatch(/^href="https?:\/\/[^"<>]*" rel="nofollow noopener noreferrer" target="_blank"$/);
      }
      // Hostile text may show, escaped, but never as a tag or inside a link target.
      expect(html, text).not.toMatch(/<(script|img|svg)|href="(javascript|data):/i);
    }
  });
});
