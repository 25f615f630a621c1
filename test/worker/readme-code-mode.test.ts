// The README's code-mode example is what search really answers: every line of its declarations block appears,
// verbatim, in the answer to the query it shows (the block is abridged: the shared interfaces are left out).
import { describe, expect, it } from 'vitest';
import readme from '../../README.md?raw';
import { connect, textOf } from './fixtures/codemode-endpoint.ts';

describe('README: code mode example', () => {
  it('the declarations it shows are those search answers for its query', async () => {
    const section = readme.slice(readme.indexOf('### Code mode'));
    const query = /asks `search` for `(\{[^`]+\})`/.exec(section)?.[1];
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(query && block).toBeTruthy();
    const client = await connect('v2 2026-07-28');
    try {
      const answer = textOf(await client.call('search', JSON.parse(query!) as Record<string, unknown>));
      const lines = block!.split('\n').filter((l) => l.trim());
      expect(lines.length).toBeGreaterThan(5);
      for (const line of lines) expect(answer, `README line: ${line}`).toContain(line);
    } finally {
      await client.close();
    }
  });
});
