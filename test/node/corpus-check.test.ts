// The corpus check's parts (scripts/corpus/, scripts/sweep/listing-rules.ts): the rules a served listing must keep,
// and a seeded draw that leaves out the specs this repository names.
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { directorySpecs, drawSpecs } from '../../scripts/corpus/draw.ts';
import { seeded } from '../../scripts/lib/seeded.ts';
import { inputSchemaProblems, listingProblems, type ListedTool } from '../../scripts/sweep/listing-rules.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { MINI } from './fixtures/mini-spec.ts';

// Worker code, type-checked with the Worker's types: imported by a specifier TypeScript does not follow.
const surfacesModule = '../../scripts/corpus/surfaces.ts';
const { surfaceProblems } = (await import(surfacesModule)) as { surfaceProblems(text: string, readShard: (file: string) => Promise<string>): Promise<string[]> };

const hints = { readOnlyHint: true, destructiveHint: false };
const tool = (name: string, inputSchema: unknown = { type: 'object', properties: {} }, annotations: ListedTool['annotations'] = hints): ListedTool => ({ name, inputSchema, annotations });

describe('listing rules', () => {
  it('passes a listing every client takes', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        per_page: { type: 'integer', minimum: 1, maximum: 100, default: 30 },
        ref: { $ref: '#/$defs/R' },
      },
      $defs: { R: { type: 'string', enum: ['a', 'b'], default: 'a' } },
    };
    expect(listingProblems([tool('repos_list', schema), tool('repos_get')])).toEqual([]);
  });

  it('names: the character set, the budget, and collisions', () => {
    const long = 'a'.repeat(42);
    const probs = listingProblems([tool('Repos-List'), tool(long), tool('x_y'), tool('x_y')]);
    expect(probs).toContain('Repos-List: name does not match /^[a-z0-9_]{1,64}$/');
    expect(probs).toContain(`${long}: name longer than 41`);
    expect(probs).toContain('x_y: collides with x_y');
    // VS Code maps what lies outside [a-z0-9_-] to "_": "a.b" meets "a_b" there.
    expect(listingProblems([tool('a_b'), tool('a.b')]).some((p) => p.startsWith('a.b: collides with a_b after VS Code'))).toBe(true);
  });

  it('both hints stated on every tool', () => {
    expect(listingProblems([tool('a', undefined, { readOnlyHint: true })])).toEqual(['a: destructiveHint is not stated']);
    expect(listingProblems([{ name: 'b', inputSchema: { type: 'object', properties: {} } }])).toEqual(['b: readOnlyHint is not stated', 'b: destructiveHint is not stated']);
  });

  it('inputSchemas: object root, draft-07 validity, items on every array (under composition too), defaults that fit', () => {
    expect(inputSchemaProblems({ type: 'array', items: {} })[0]).toMatch(/root type is "array"/);
    expect(inputSchemaProblems({ type: 'object', properties: { a: { type: 'string', minLength: -1 } } }).join()).toMatch(/not a valid draft-07 schema/);
    expect(inputSchemaProblems({ type: 'object', properties: { a: { anyOf: [{ type: ['array', 'null'] }] } } })).toEqual(['#/properties/a/anyOf/0: array without items']);
    // A property named "items" is a name, not the keyword.
    expect(inputSchemaProblems({ type: 'object', properties: { items: { type: 'string' } } })).toEqual([]);
    expect(inputSchemaProblems({ type: 'object', properties: { n: { type: 'integer', minimum: 1, default: 0 } } })[0]).toMatch(/^#\/properties\/n: default 0 fails its own schema/);
    expect(inputSchemaProblems({ type: 'object', properties: { e: { $ref: '#/$defs/E', default: 'z' } }, $defs: { E: { enum: ['a'] } } })[0]).toMatch(/^#\/properties\/e: default "z" fails/);
  });
});

describe('the draw', () => {
  it('is fixed by its seed, and differs between seeds', () => {
    const a = seeded(7);
    const b = seeded(7);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const d1 = drawSpecs(1, 20);
    expect(drawSpecs(1, 20).specs).toEqual(d1.specs);
    expect(drawSpecs(2, 20).specs).not.toEqual(d1.specs);
    expect(new Set(d1.specs).size).toBe(20);
  });

  it('leaves out every spec the repository names', () => {
    const all = directorySpecs();
    const d = drawSpecs(3, all.length);
    expect(d.total).toBe(all.length);
    expect(d.specs.length).toBe(all.length - d.seen);
    // Named in tests and in the naming regression set.
    for (const named of ['stripe.com.json', 'asana.com.json', 'svix.com.json', 'okta.local.json']) expect(d.specs).not.toContain(named);
  });
});

describe('every profile and mode of a built catalogue', () => {
  const noShards = async (file: string): Promise<string> => {
    throw new Error(`no shard ${file}`);
  };
  it('keeps the rules, and a broken schema is named in each listing that shows it', async () => {
    const { catalogue } = await buildCatalogue(MINI);
    expect(await surfaceProblems(await encodeCatalogue(catalogue), noShards)).toEqual([]);
    const broken = catalogue.tools[0]!;
    broken.inputSchema = { ...broken.inputSchema, properties: { ...(broken.inputSchema.properties as object), n: { type: 'integer', minimum: 1, default: 0 } } };
    const probs = await surfaceProblems(await encodeCatalogue(catalogue), noShards);
    // OpenAI's strict form states no defaults; every other profile lists this one, in full and in the hybrid list.
    for (const profile of ['default', 'cursor', 'claude', 'gemini', 'vscode']) {
      for (const mode of ['tools', 'hybrid']) expect(probs, `${profile}/${mode}`).toContain(`[${profile}/${mode}] ${broken.name}: inputSchema #/properties/n: default 0 fails its own schema (default must be >= 1)`);
    }
    expect(probs.filter((p) => p.startsWith('[openai/'))).toEqual([]);
  });
});
