import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { loadCatalogue } from '../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../src/catalogue/slices.ts';
import { buildView } from '../src/profiles/view.ts';
import { PROFILES } from '../src/profiles/profiles.ts';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
const file = process.argv[2] ?? '/tmp/outw/cat/catalog.txt';
const loaded = loadCatalogue(readFileSync(file, 'utf8'));
const withId = process.argv[3] === 'id';
for (let r = 0; r < 3; r++) for (const [label, sel] of [['defaults', { toolsets: loaded.catalogue.defaultToolsets }], ['all', {}]] as const) {
  const tools = buildView(loaded, sliceOf(loaded, sel as any), PROFILES.default).tools;
  const outs = tools.filter(t => t.outputSchema).map(t => withId ? { $id: 'urn:mcp-catalogue:' + createHash('sha256').update(JSON.stringify(t.outputSchema)).digest('hex').slice(0, 32), ...t.outputSchema } : t.outputSchema);
  const text = JSON.stringify(outs);
  const t0 = performance.now();
  const list = JSON.parse(text);
  const v = new AjvJsonSchemaValidator();
  for (const s of list) v.getValidator(s);
  console.log(withId ? 'id' : 'noid', label, tools.length, list.length, 'distinct', new Set(list.map((s: any) => JSON.stringify(s))).size, (performance.now() - t0).toFixed(0), 'ms', text.length, 'bytes; whole list', JSON.stringify(tools).length);
}
