// Every output field of every GitHub tool has one type everywhere a client can read it: the catalogue, tools/list
// in every profile that carries outputSchemas, describe_tool, and code mode's declarations (checked with the
// TypeScript compiler). And the types are exact: a number is never widened to a string by the generator, and null is
// allowed only where the spec allows it (docs/generator.md, "Drift").
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { pascal, withoutWrapperNull } from '../../scripts/catalog/declarations.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { assembleDeclarations, parseDeclarations } from '../../src/codemode/declarations.ts';
import { describedOutputSchema } from '../../src/discovery/described-schema.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { buildView } from '../../src/profiles/view.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const doc = parseDeclarations(readFileSync(new URL('../../catalog/declarations.txt', import.meta.url), 'utf8'));
const withOutput = Array.from({ length: loaded.count }, (_, i) => loaded.tool(i)).filter((t) => t.outputSchema);

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The JSON kinds a schema node allows at its own level; 'unknown' when it constrains nothing. */
function schemaKinds(s: unknown): Set<string> {
  let kinds = new Set<string>();
  if (!isObj(s)) return new Set(['unknown']);
  for (const t of [s.type].flat()) if (typeof t === 'string') kinds.add(t === 'integer' ? 'number' : t);
  const branches = new Set<string>();
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[k])) continue;
    for (const b of s[k] as unknown[]) for (const t of schemaKinds(b)) branches.add(t);
  }
  // A type beside alternatives allows what both allow; an alternative that allows anything leaves the type.
  if (!kinds.size) kinds = branches;
  else if (branches.size && !branches.has('unknown')) kinds = new Set([...kinds].filter((k) => branches.has(k)));
  if (!kinds.size && isObj(s.properties)) kinds.add('object');
  if (!kinds.size && s.items !== undefined) kinds.add('array');
  return kinds.size ? kinds : new Set(['unknown']);
}

/** The same node's kinds at a path of another schema (a listing, describe_tool), walking properties and items. */
function at(schema: unknown, path: string[]): unknown {
  let node = schema;
  for (const p of path) node = p === '[]' ? (node as JsonSchema | undefined)?.items : isObj(node) && isObj(node.properties) ? node.properties[p] : undefined;
  return node;
}

/** Walks every node reachable through properties and items of plain (non-composed) nodes. */
function walk(schema: unknown, visit: (node: unknown, path: string[]) => void, path: string[] = []): void {
  visit(schema, path);
  if (!isObj(schema)) return;
  if (isObj(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) walk(v, visit, [...path, k]);
  if (schema.items !== undefined) walk(schema.items, visit, [...path, '[]']);
}

/** The fields of a response body: the root's, a wrapped tool's `result`'s, or its items'. */
function topFields(schema: unknown, wrapped: boolean): Record<string, unknown> {
  let body = wrapped ? at(schema, ['result']) : schema;
  if (schemaKinds(body).has('array')) body = at(body, ['[]']);
  return isObj(body) && isObj(body.properties) ? body.properties : {};
}

const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
const show = (s: Set<string>) => [...s].sort().join('|');

describe('output types agree across the catalogue, listings, describe_tool and declarations (GitHub)', () => {
  it('every listing that carries outputSchemas shows the catalogue type at every path it keeps, every top-level field among them, with no $id (a repeated $id breaks clients that share one Ajv)', () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const profile of Object.values(PROFILES).filter((p) => p.carry === 'both')) {
      const view = buildView(loaded, sliceOf(loaded, {}), profile);
      for (const tool of withOutput) {
        const listed = view.advertised(loaded.indexOf(tool.name)!);
        expect(listed && '$id' in listed, tool.name).toBe(false);
        walk(listed, (node, path) => {
          const kinds = schemaKinds(node);
          if (kinds.has('unknown')) return;
          const expected = schemaKinds(at(tool.outputSchema, path));
          if (!same(kinds, expected)) mismatches.push(`${profile.id} ${tool.name} ${path.join('.')}: ${show(kinds)} vs catalogue ${show(expected)}`);
        });
        // The body's own fields (a wrapped list's item fields) are all listed, typed as in the catalogue.
        const shown = topFields(listed, tool.outputWrapped === true);
        for (const [name, field] of Object.entries(topFields(tool.outputSchema, tool.outputWrapped === true))) {
          const kinds = schemaKinds(field);
          if (!kinds.has('unknown')) expect(schemaKinds(shown[name]), `${profile.id} ${tool.name} ${name}`).toEqual(kinds);
        }
        compared++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBe(withOutput.length * 5);
  });

  it('describe_tool shows the catalogue type at every path it keeps', () => {
    const mismatches: string[] = [];
    let nodes = 0;
    for (const tool of withOutput) {
      const described = describedOutputSchema(tool, PROFILES.default)!;
      walk(described, (node, path) => {
        const kinds = schemaKinds(node);
        if (kinds.has('unknown')) return;
        nodes++;
        const expected = schemaKinds(at(tool.outputSchema, path));
        if (!same(kinds, expected)) mismatches.push(`${tool.name} ${path.join('.')}: ${show(kinds)} vs catalogue ${show(expected)}`);
      });
    }
    expect(mismatches).toEqual([]);
    expect(nodes).toBeGreaterThan(40_000);
  });

  it('code mode declarations type every field as the catalogue does (TypeScript checker)', () => {
    const file = '/virtual/declarations.ts';
    const names = withOutput.map((t) => t.name);
    const source = `${assembleDeclarations(doc, names)}\nexport {};\n`;
    const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2023.d.ts'], types: [] };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => name === file || fileExists(name);
    const program = ts.createProgram([file], options, host);
    const checker = program.getTypeChecker();
    const aliases = new Map<string, ts.Type>();
    ts.forEachChild(program.getSourceFile(file)!, (node) => {
      if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, checker.getTypeAtLocation(node.name));
    });

    const members = (t: ts.Type): ts.Type[] => (t.isUnion() ? t.types : [t]).filter((m) => !(m.flags & ts.TypeFlags.Undefined));
    const tsKinds = (t: ts.Type): Set<string> => {
      const kinds = new Set<string>();
      for (const m of members(t)) {
        if (m.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return new Set(['unknown']);
        if (m.flags & ts.TypeFlags.NumberLike) kinds.add('number');
        else if (m.flags & ts.TypeFlags.StringLike) kinds.add('string');
        else if (m.flags & ts.TypeFlags.BooleanLike) kinds.add('boolean');
        else if (m.flags & ts.TypeFlags.Null) kinds.add('null');
        else if (checker.isArrayType(m)) kinds.add('array');
        else kinds.add('object');
      }
      return kinds;
    };

    const mismatches: string[] = [];
    let nodes = 0;
    const compare = (tool: string, schema: unknown, type: ts.Type, path: string[]): void => {
      const declared = tsKinds(type);
      const expected = schemaKinds(schema);
      if (declared.has('unknown') || expected.has('unknown')) return;
      nodes++;
      if (!same(declared, expected)) {
        mismatches.push(`${tool} ${path.join('.') || '(result)'}: declared ${show(declared)}, catalogue ${show(expected)}`);
        return;
      }
      if (!isObj(schema)) return;
      // Descend where the schema node is one plain shape; composed nodes are compared at their own level only.
      if (schema.anyOf || schema.oneOf || schema.allOf) return;
      const object = members(type).find((m) => !(m.flags & ts.TypeFlags.Null) && !checker.isArrayType(m) && m.flags & ts.TypeFlags.Object);
      if (object && isObj(schema.properties)) {
        for (const [key, sub] of Object.entries(schema.properties)) {
          const prop = checker.getPropertyOfType(object, key);
          // A declaration cut to `object` (depth) has no properties: nothing below it to disagree with.
          if (prop) compare(tool, sub, checker.getTypeOfSymbol(prop), [...path, key]);
        }
      }
      const array = members(type).find((m) => checker.isArrayType(m));
      if (array && schema.items !== undefined) compare(tool, schema.items, checker.getTypeArguments(array as ts.TypeReference)[0]!, [...path, '[]']);
    };

    for (const tool of withOutput) {
      const type = aliases.get(`${pascal(tool.name)}Result`);
      expect(type, tool.name).toBeDefined();
      const schema = tool.outputWrapped ? withoutWrapperNull((tool.outputSchema!.properties as Record<string, unknown>).result) : tool.outputSchema;
      compare(tool.name, schema, type!, []);
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(nodes).toBeGreaterThan(20_000);
  }, 180_000);
});

describe('exact output types (GitHub spec against the catalogue)', () => {
  it('null below the root only where the spec allows it; no number widened to a string', async () => {
    const { doc: spec } = await loadSpec(new URL('../../node_modules/@octokit/openapi/generated/api.github.com.json', import.meta.url).pathname);
    const schemas = spec.components.schemas as Record<string, JsonSchema>;
    // simple-user and repository: every property's type is the spec's own, with null only where it says nullable.
    const check = (tool: string, path: string[], component: string) => {
      const listed = at(loaded.tool(loaded.indexOf(tool)!).outputSchema, path) as JsonSchema;
      const source = schemas[component]!;
      let checked = 0;
      for (const [key, prop] of Object.entries(source.properties as Record<string, JsonSchema>)) {
        const ours = (listed.properties as Record<string, JsonSchema>)[key];
        if (!ours || '$ref' in prop || prop.allOf || prop.anyOf || prop.oneOf) continue;
        const declared = new Set([prop.type].flat().filter(Boolean).map((t) => (t === 'integer' ? 'number' : String(t))));
        if (prop.nullable) declared.add('null');
        expect(show(schemaKinds(ours)), `${tool} ${[...path, key].join('.')}`).toBe(show(declared));
        checked++;
      }
      expect(checked).toBeGreaterThan(10);
    };
    check('repos_get', [], 'full-repository');
    check('pulls_get', [], 'pull-request');
    check('issues_get', ['user'], 'nullable-simple-user');
    expect(at(loaded.tool(loaded.indexOf('repos_get')!).outputSchema, ['stargazers_count'])).toEqual({ type: 'integer' });
  });
});
