// The texts the token estimate (src/lib/tokens.ts) is checked against, in three groups:
//   - tuning: what its weights were fitted on: GitHub's response examples (English JSON), TypeScript's translated
//     messages (Chinese, Japanese, Korean, Russian and five European languages; as JSON and as text) and zod's
//     translated messages (about 60 languages in 20 scripts, Arabic, Hebrew, Devanagari, Thai and Georgian among them);
//   - held out: never looked at while fitting: records and lorem ipsum from @faker-js/faker's locales (names,
//     addresses, companies, sentences), as JSON and as text;
//   - synthetic: what no language looks like but results carry or programs make: base64, hex, digit runs, numbers,
//     uuids, emoji, JSON escapes, random characters of one script, one character repeated; and the two faker lorems
//     that are no language either (LV: pseudo-Latin with a macron on most vowels; EN_BORK: the Swedish Chef's).
import { readdirSync, readFileSync } from 'node:fs';
import * as faker from '@faker-js/faker';

export interface Sample {
  name: string;
  text: string;
}

const NM = 'node_modules';

export function tuningSamples(): Sample[] {
  const out: Sample[] = [];
  const gh = JSON.parse(readFileSync(`${NM}/@octokit/openapi/generated/api.github.com.json`, 'utf8'));
  for (const [k, v] of Object.entries<{ value: unknown }>(gh.components.examples)) {
    const text = JSON.stringify(v.value);
    if (text && text.length > 2000) out.push({ name: `github:${k}`, text });
  }
  for (const loc of ['zh-cn', 'zh-tw', 'ja', 'ko', 'ru', 'de', 'fr', 'pl', 'tr', 'cs']) {
    const json = readFileSync(`${NM}/typescript/lib/${loc}/diagnosticMessages.generated.json`, 'utf8');
    out.push({ name: `typescript:${loc}:json`, text: json.slice(0, 100_000) });
    out.push({ name: `typescript:${loc}:text`, text: Object.values(JSON.parse(json) as Record<string, string>).join('\n').slice(0, 100_000) });
  }
  for (const f of readdirSync(`${NM}/zod/v4/locales`).filter((f) => f.endsWith('.js') && f !== 'index.js')) {
    const src = readFileSync(`${NM}/zod/v4/locales/${f}`, 'utf8');
    // The messages: the source's string literals that are not plain ASCII.
    const strings = [...src.matchAll(/(["'`])((?:(?!\1)[^\\\n]|\\.){2,}?)\1/g)].map((m) => m[2]!).filter((s) => /[^\x00-\x7f]/.test(s));
    const text = strings.join(' ');
    if (text.length > 500) out.push({ name: `zod:${f.slice(0, -3)}`, text });
  }
  return out;
}

const NOT_A_LANGUAGE = new Set(['fakerLV', 'fakerEN_BORK']);

export function heldOutSamples(languages = true): Sample[] {
  const out: Sample[] = [];
  for (const [name, f] of Object.entries(faker).filter(([k]) => /^faker[A-Z]{2}/.test(k) && NOT_A_LANGUAGE.has(k) !== languages) as Array<[string, faker.Faker]>) {
    if (!(f as unknown as { rawDefinitions?: { lorem?: { word?: unknown } } }).rawDefinitions?.lorem?.word) continue;
    f.seed(42);
    const field = (make: () => unknown) => {
      try {
        return make();
      } catch {
        return undefined; // a locale without that definition
      }
    };
    const record = () => ({
      id: f.number.int({ max: 1e6 }),
      name: field(() => f.person.fullName()),
      city: field(() => f.location.city()),
      street: field(() => f.location.streetAddress()),
      company: field(() => f.company.name()),
      title: f.lorem.sentence(),
      body: f.lorem.paragraph(),
      created_at: f.date.past().toISOString(),
    });
    out.push({ name: `faker:${name.slice(5)}:json`, text: JSON.stringify(Array.from({ length: 60 }, record)) });
    out.push({ name: `faker:${name.slice(5)}:text`, text: f.lorem.paragraphs(30) });
  }
  return out;
}

/** A deterministic generator, so synthetic samples are the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const codePoints = (n: number, from: number, span: number, step: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(from + ((i * step) % span))).join('');

export function syntheticSamples(): Sample[] {
  const r = seeded(7);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
  const emoji = ['😀', '👍', '🎉', '❤️', '🚀', '👨‍👩‍👧‍👦', '🇯🇵', '👍🏽', '🧑‍💻', '✅', '🔥', '🐛', '⚠️', '🙏', '🤖', '🥲', '🫠', '🪿'];
  const out: Sample[] = [
    { name: 'base64', text: bytes(30_000).toString('base64') },
    { name: 'base64url', text: bytes(30_000).toString('base64url') },
    { name: 'hex', text: bytes(20_000).toString('hex') },
    { name: 'digits', text: Array.from({ length: 40_000 }, () => Math.floor(r() * 10)).join('') },
    { name: 'integers-json', text: JSON.stringify(Array.from({ length: 5_000 }, () => Math.floor(r() * 1e9))) },
    { name: 'floats-json', text: JSON.stringify(Array.from({ length: 5_000 }, () => r() * 1000)) },
    { name: 'uuids-json', text: JSON.stringify(Array.from({ length: 2_000 }, () => bytes(16).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'))) },
    { name: 'shas-json', text: JSON.stringify(Array.from({ length: 2_000 }, () => ({ sha: bytes(20).toString('hex') }))) },
    { name: 'emoji', text: Array.from({ length: 5_000 }, (_, i) => emoji[(i * 7) % emoji.length]).join('') },
    { name: 'emoji-in-words', text: Array.from({ length: 3_000 }, (_, i) => `fixed ${emoji[i % emoji.length]} bug`).join(' ') },
    { name: 'cjk-escaped-json', text: JSON.stringify('字典'.repeat(10)).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`).repeat(200) },
    { name: 'control-escaped-json', text: JSON.stringify(Array.from({ length: 5_000 }, (_, i) => String.fromCharCode(i % 32)).join('')) },
    { name: 'random-emoji', text: codePoints(3_000, 0x1f300, 0x2ff, 37) },
    { name: 'random-cjk', text: codePoints(3_000, 0x4e00, 20_900, 7919) },
    { name: 'random-cjk-ext-b', text: codePoints(3_000, 0x20000, 42_000, 7919) },
    { name: 'random-hangul', text: codePoints(3_000, 0xac00, 11_172, 7919) },
    { name: 'random-kana', text: codePoints(3_000, 0x3041, 0x5e, 31) },
    { name: 'random-latin-accents', text: codePoints(3_000, 0xc0, 0x180, 13) },
    { name: 'random-symbols', text: codePoints(3_000, 0x2000, 0x1000, 13) },
    { name: 'random-ascii', text: Array.from({ length: 40_000 }, () => String.fromCharCode(33 + Math.floor(r() * 94))).join('') },
  ];
  for (const c of ['a', 'z', 'é', 'ж', 'ا', 'ก', '字', 'あ', '한', '😀', '.', '-', '0']) out.push({ name: `repeated ${c}`, text: c.repeat(3_000 / c.length) });
  return [...out, ...heldOutSamples(false)];
}
