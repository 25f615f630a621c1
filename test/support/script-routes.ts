// Bodies in scripts other than Latin, for the token-budget tests (test/worker/result-tokens.test.ts): real sentences
// in Chinese, Japanese and Korean (TypeScript's own translated messages) mixed with Russian, Arabic, emoji and
// JSON-escaped text, as a JSON list, one huge JSON object, a text/plain body and an error. `POST /__tokens` counts
// the o200k tokens of the text it is sent (gpt-tokenizer runs here in Node; it is too heavy for workerd), so a test
// can check what a client received against the real tokenizer, not against the estimate under test.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

const LOCALES = ['zh-cn', 'ja', 'ko', 'zh-tw'] as const;
let sentences: Record<(typeof LOCALES)[number], string[]> | undefined;

/** Each locale's translated TypeScript messages, in file order (deterministic). */
function messages(): Record<(typeof LOCALES)[number], string[]> {
  sentences ??= Object.fromEntries(
    LOCALES.map((l) => [l, Object.values(JSON.parse(readFileSync(`node_modules/typescript/lib/${l}/diagnosticMessages.generated.json`, 'utf8')) as Record<string, string>)]),
  ) as Record<(typeof LOCALES)[number], string[]>;
  return sentences;
}

/** The other scripts a result mixes in: Cyrillic, Arabic, emoji, and a string that spells its CJK as JSON escapes. */
const MIXED = ['Ошибка: ресурс не найден', 'لم يتم العثور على المورد', '👍🎉🚀 ✅', 'raw \\u5b57\\u5178 escapes', 'ok'];

/** About `chars` characters of running text, starting at message `from` of each locale in turn. */
function cjkText(chars: number, from = 0): string {
  const m = messages();
  const parts: string[] = [];
  let n = 0;
  for (let i = from; n < chars; i++) {
    const s = m[LOCALES[i % LOCALES.length]!][i % m['zh-cn'].length]!;
    parts.push(s);
    n += s.length + 1;
  }
  return parts.join('\n').slice(0, chars);
}

function issue(i: number, bodyChars: number): Record<string, unknown> {
  return {
    id: i + 1,
    number: i + 1,
    title: cjkText(40, i),
    state: i % 3 ? 'open' : 'closed',
    user: { login: `user-${i}`, name: messages().ko[i]!.slice(0, 12) },
    labels: [{ name: messages().ja[i]!.slice(0, 8) }, { name: MIXED[i % MIXED.length]! }],
    body: `${cjkText(bodyChars, i * 7)} ${MIXED.join(' ')}`,
    reactions: { '+1': i % 5, heart: i % 2, summary: '👍❤️🎉' },
  };
}

/** Answers the request when it is one of these routes; false otherwise. */
export function scriptRoute(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://upstream');
  switch (url.pathname) {
    case '/__tokens':
      // Loaded on first use: the tokenizer's ranks are megabytes, and most runs never count.
      void Promise.all([readBody(req), import('gpt-tokenizer/encoding/o200k_base')]).then(([text, { encode }]) => send(res, 200, 'application/json', JSON.stringify({ tokens: encode(text).length })));
      return true;
    case '/scripts/issues': {
      const n = Number(url.searchParams.get('per_page') ?? 200);
      send(res, 200, 'application/json', JSON.stringify(Array.from({ length: n }, (_, i) => issue(i, 600))));
      return true;
    }
    case '/scripts/issue':
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ ...issue(0, 120_000), comments: Array.from({ length: 50 }, (_, i) => issue(i, 300)) }));
      return true;
    case '/scripts/notes.txt':
      send(res, 200, 'text/plain; charset=utf-8', cjkText(150_000));
      return true;
    case '/scripts/error':
      send(res, 422, 'application/json', JSON.stringify({ message: cjkText(30_000), errors: [{ field: 'title', code: MIXED[0] }] }));
      return true;
    default:
      return false;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
