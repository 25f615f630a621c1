// What every client must be able to take from a served tools/list (docs/sweep.md, "Listing rules"): checked on the
// listing a real client received, so it covers the worker's profiles and compaction as well as the generator.
// The rules come from the clients' own checks: names (Claude, Cursor, VS Code, OpenAI), explicit hints (hosts read an
// omitted hint differently), and inputSchemas VS Code validates against the draft-07 meta-schema and OpenAI reads.
import { Ajv } from 'ajv';
import { NAME_BUDGET } from '../catalog/name-budget.ts';

/** A tool as a client received it (only what the rules read). */
export interface ListedTool {
  name: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: unknown; destructiveHint?: unknown };
}

const NAME_RE = /^[a-z0-9_]{1,64}$/;
type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each subschema with its JSON pointer (keyword positions only; a property named `items` is not a keyword). */
function* subschemas(s: unknown, path = '#'): Generator<[Node, string]> {
  if (!isNode(s)) return;
  yield [s, path];
  for (const k of ['properties', 'patternProperties', '$defs', 'definitions']) {
    const m = s[k];
    if (isNode(m)) for (const [p, v] of Object.entries(m)) yield* subschemas(v, `${path}/${k}/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
  for (const k of ['items', 'additionalProperties', 'additionalItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) {
    const v = s[k];
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* subschemas(v[i], `${path}/${k}/${i}`);
    else yield* subschemas(v, `${path}/${k}`);
  }
  for (const k of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    const v = s[k];
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* subschemas(v[i], `${path}/${k}/${i}`);
  }
}

const hasType = (n: Node, t: string) => n.type === t || (Array.isArray(n.type) && n.type.includes(t));

/** One Ajv per check run: draft-07 (Ajv's default meta-schema), formats unknown to it ignored as VS Code does. */
function draft07(): Ajv {
  return new Ajv({ strict: false, validateFormats: false, allErrors: false });
}

/** Problems of one inputSchema: draft-07 validity, an object root, items on every array, defaults that fit. */
export function inputSchemaProblems(schema: unknown, ajv: Ajv = draft07()): string[] {
  const probs: string[] = [];
  if (!isNode(schema)) return ['inputSchema is not an object'];
  if (schema.type !== 'object') probs.push(`root type is ${JSON.stringify(schema.type)}, not "object"`);
  if (!ajv.validateSchema(schema as object)) probs.push(`not a valid draft-07 schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`);
  for (const [n, p] of subschemas(schema)) {
    if (hasType(n, 'array') && n.items === undefined) probs.push(`${p}: array without items`);
    if ('default' in n) {
      // The default is checked against its own subschema, with the root's $defs in reach of its refs.
      const own: Node = { ...n };
      delete own.default;
      if (schema.$defs !== undefined && own.$defs === undefined) own.$defs = schema.$defs;
      if (schema.definitions !== undefined && own.definitions === undefined) own.definitions = schema.definitions;
      try {
        if (!ajv.validate(own, n.default)) probs.push(`${p}: default ${JSON.stringify(n.default).slice(0, 60)} fails its own schema (${ajv.errorsText(ajv.errors, { dataVar: 'default' })})`);
      } catch (e) {
        probs.push(`${p}: default not checkable (${(e as Error).message.slice(0, 120)})`);
      }
    }
  }
  return probs;
}

/**
 * Every rule violation in a listing, one line each (`tool: problem`). `maxName`: the catalogue's name budget
 * (41 by default, so every client's prefix fits).
 */
export function listingProblems(tools: ListedTool[], maxName = NAME_BUDGET): string[] {
  const probs: string[] = [];
  const seen = new Map<string, string>();
  const ajv = draft07();
  for (const t of tools) {
    const name = t.name;
    if (!NAME_RE.test(name)) probs.push(`${name}: name does not match ${NAME_RE}`);
    if (name.length > maxName) probs.push(`${name}: name longer than ${maxName}`);
    // VS Code turns anything outside [a-z0-9_-] into "_": two names may meet there.
    const vscode = name.replace(/[^a-z0-9_-]/g, '_');
    const other = seen.get(vscode);
    if (other !== undefined) probs.push(`${name}: collides with ${other}${other === name ? '' : ' after VS Code maps the names'}`);
    seen.set(vscode, name);
    for (const hint of ['readOnlyHint', 'destructiveHint'] as const) {
      if (typeof t.annotations?.[hint] !== 'boolean') probs.push(`${name}: ${hint} is not stated`);
    }
    for (const p of inputSchemaProblems(t.inputSchema, ajv)) probs.push(`${name}: inputSchema ${p}`);
  }
  return probs;
}
