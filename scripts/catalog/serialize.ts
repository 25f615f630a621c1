// Deterministic catalogue text: keys sorted everywhere, tools sorted by name, one tool per line.
import type { Catalogue } from '../../src/catalogue/types.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';

export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

function render(cat: Catalogue): string {
  const { tools, ...rest } = cat;
  const head = sortKeys(rest) as Record<string, unknown>;
  const lines = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => JSON.stringify(sortKeys(t)));
  const parts: string[] = [];
  const keys = [...Object.keys(head), 'tools'].sort();
  for (const k of keys) {
    if (k === 'tools') parts.push(`"tools":[${lines.length ? `\n${lines.join(',\n')}\n` : ''}]`);
    else parts.push(`${JSON.stringify(k)}:${JSON.stringify(head[k])}`);
  }
  return `{${parts.join(',')}}\n`;
}

/** Serialise with a content hash (sha256 of the text rendered without the hash field). */
export async function serializeCatalogue(cat: Catalogue): Promise<{ text: string; hash: string }> {
  const { hash: _h, ...noHash } = cat as Catalogue & { hash?: string };
  const hash = (await sha256Hex(render(noHash as Catalogue))).slice(0, 32);
  return { text: render({ ...(noHash as Catalogue), hash } as Catalogue), hash };
}
