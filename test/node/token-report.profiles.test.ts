// Every profile view of the whole GitHub catalogue obeys its client's rules (docs/generator.md, "Client rules").
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { PROFILES, SERVER_NAME_ALLOWANCE, type ProfileId } from '../../src/profiles/profiles.ts';
import { buildView } from '../../src/profiles/view.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const all = sliceOf(loaded, {});

function walk(node: unknown, visit: (key: string, value: unknown, parent: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (visit(k, v, node as Record<string, unknown>), walk(v, visit));
}

describe('profile views of the whole GitHub catalogue', () => {
  for (const id of Object.keys(PROFILES) as ProfileId[]) {
    it(`${id}: names fit the budget, arrays have items, the strict client's Ajv compiles every outputSchema`, () => {
      const view = buildView(loaded, all, PROFILES[id]);
      expect(view.tools).toHaveLength(loaded.count);
      expect(new Set(view.tools.map((t) => t.name)).size).toBe(view.tools.length);
      const ajv = new Ajv({ strict: false, validateFormats: true });
      addFormats(ajv);
      for (const t of view.tools) {
        expect(t.name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(t.name.length).toBeLessThanOrEqual(PROFILES[id].maxName);
        for (const schema of [t.inputSchema, t.outputSchema]) {
          if (!schema) continue;
          expect(schema.type).toBe('object');
          walk(schema, (k, v, parent) => {
            if (k === 'type' && (v === 'array' || (Array.isArray(v) && v.includes('array')))) expect(parent.items ?? parent.prefixItems, `${t.name}: array without items`).toBeDefined();
            // Outputs stay open (a live extra field must not fail the strict client); closed inputs are the API's own rule.
            if (k === 'additionalProperties' && schema === t.outputSchema) expect(v).not.toBe(false);
          });
        }
        if (t.outputSchema) expect(() => ajv.compile(t.outputSchema!), t.name).not.toThrow();
      }
    });
  }

  it('gemini: no $ref, $defs, definitions or additionalProperties anywhere; no outputSchema', () => {
    for (const t of buildView(loaded, all, PROFILES.gemini).tools) {
      expect(t.outputSchema).toBeUndefined();
      walk(t.inputSchema, (k) => expect(['$ref', '$defs', 'definitions', 'additionalProperties']).not.toContain(k));
    }
  });

  it('vscode: every inputSchema is valid against the draft-07 meta-schema', () => {
    const ajv = new Ajv({ strict: false });
    for (const t of buildView(loaded, all, PROFILES.vscode).tools) expect(ajv.validateSchema(t.inputSchema), `${t.name}: ${ajv.errorsText()}`).toBe(true);
  });

  it('claude: no root-level oneOf/anyOf/allOf in any inputSchema, and mcp__<server>__<tool> fits 64 chars', () => {
    for (const t of buildView(loaded, all, PROFILES.claude).tools) {
      for (const k of ['oneOf', 'anyOf', 'allOf']) expect(t.inputSchema[k]).toBeUndefined();
      expect(`mcp__${'s'.repeat(SERVER_NAME_ALLOWANCE)}__${t.name}`.length).toBeLessThanOrEqual(64);
    }
  });
});
