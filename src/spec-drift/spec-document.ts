// An OpenAPI document as both the generator (scripts/catalog/spec-loader.ts) and the Worker's drift check
// (src/spec-drift/check.ts) read it: parsed the same way, digested the same way (the `source.digest` of the catalogue
// header) and fingerprinted per operation the same way, so what the Worker computes from the live spec compares with
// what the generator recorded at build time. Web Crypto and plain JS only: this module runs in workerd and in Node.
import { sha256Hex } from '../lib/bytes.ts';

/** The static asset, beside a catalogue's shards, holding the fingerprints of the spec it was built from. */
export const SPEC_OPERATIONS_ASSET = 'spec-operations.json';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export class SpecDocumentError extends Error {
  override name = 'SpecDocumentError';
}

/** What the generator records about the spec, read back by the Worker (SPEC_OPERATIONS_ASSET). */
export interface SpecOperations {
  format: 1;
  /** specDigest() of the document: the catalogue header's `source.digest`. */
  digest: string;
  /** "METHOD /path" -> operationFingerprints() value. */
  operations: Record<string, string>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * JSON text with object keys sorted everywhere and undefined members left out. The replacer builds each sorted copy
 * one level at a time, so no second full tree exists at once (a 13 MB spec parses into ~40 MB of objects).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortedMembers) ?? 'null';
}

function sortedMembers(_key: string, value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const k of Object.keys(value).sort()) {
    const v = value[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The spec's identity: sha256 (first 16 hex) of its canonical JSON, so reformatting or reordering changes nothing. */
export async function specDigest(doc: unknown): Promise<string> {
  return (await sha256Hex(canonicalJson(doc))).slice(0, 16);
}

/**
 * Parses a spec's text as the generator does: JSON when it starts with `{` (after a BOM and blank space), else YAML
 * (yaml's core schema, `<<` merge keys on). `yaml` is imported only for YAML, so a JSON check never loads it.
 * `maxAliasCount` bounds alias expansion (a YAML bomb); the generator reads local files it trusts and lifts it.
 */
export async function parseSpecText(text: string, opts: { maxAliasCount?: number } = {}): Promise<unknown> {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch (e) {
      throw new SpecDocumentError(`not valid JSON: ${(e as Error).message}`);
    }
  }
  const { default: YAML } = await import('yaml');
  try {
    return YAML.parse(trimmed, { maxAliasCount: opts.maxAliasCount ?? 100, merge: true, intAsBigInt: false });
  } catch (e) {
    throw new SpecDocumentError(`neither JSON nor valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** The spec's version string when it is OpenAPI 3.0/3.1 or Swagger 2.0 with a `paths` object; else throws. */
export function openApiVersion(doc: unknown): string {
  if (!isObject(doc)) throw new SpecDocumentError('not an OpenAPI document (not an object)');
  const version = String(doc.openapi ?? doc.swagger ?? '');
  if (!/^(2\.0|3\.[01]\.\d+.*)$/.test(version)) {
    throw new SpecDocumentError(`not an OpenAPI 3.0/3.1 or Swagger 2.0 document (openapi/swagger = ${JSON.stringify(doc.openapi ?? doc.swagger ?? null)})`);
  }
  if (!isObject(doc.paths)) throw new SpecDocumentError('no "paths" object');
  return version;
}

/** `$ref`s in a value, iteratively (specs nest deeper than a comfortable call stack). */
function refsIn(value: unknown, out: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [value];
  while (stack.length) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) if (x !== null && typeof x === 'object') stack.push(x);
    } else if (isObject(n)) {
      for (const [k, v] of Object.entries(n)) {
        if (k === '$ref' && typeof v === 'string') out.add(v);
        else if (v !== null && typeof v === 'object') stack.push(v);
      }
    }
  }
  return out;
}

/** Whether the document points outside itself (the generator bundles such refs; the Worker cannot fetch them). */
export function hasExternalRef(doc: unknown): boolean {
  for (const ref of refsIn(doc)) if (!ref.startsWith('#')) return true;
  return false;
}

/** Resolves a local JSON pointer (`#/components/schemas/Pet`); undefined when it leads nowhere. */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    let part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    try {
      part = decodeURIComponent(part);
    } catch {
      /* a literal % in a key */
    }
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/**
 * One fingerprint (12 hex) per operation, keyed "METHOD /path": the operation object with its path-level parameters,
 * plus every local `$ref` it reaches, transitively, each by the hash of its own canonical JSON. So a change to a
 * shared schema changes exactly the operations that use it, and editing anything else (info, tags, servers, unused
 * components) changes none. Swagger 2.0 is fingerprinted as written (`#/definitions/...` are local refs too).
 */
export async function operationFingerprints(doc: unknown): Promise<Record<string, string>> {
  if (!isObject(doc) || !isObject(doc.paths)) return {};
  const refDeps = new Map<string, string[]>();
  const closure = (start: Iterable<string>): string[] => {
    const seen = new Set<string>();
    const queue = [...start];
    while (queue.length) {
      const ref = queue.pop()!;
      if (seen.has(ref)) continue;
      seen.add(ref);
      let deps = refDeps.get(ref);
      if (!deps) refDeps.set(ref, (deps = [...refsIn(resolvePointer(doc, ref))]));
      for (const d of deps) if (!seen.has(d)) queue.push(d);
    }
    return [...seen].sort();
  };
  const ops: Array<{ key: string; own: string; refs: string[] }> = [];
  for (const path of Object.keys(doc.paths).sort()) {
    let item = doc.paths[path];
    const itemRefs: string[] = [];
    if (isObject(item) && typeof item.$ref === 'string') {
      itemRefs.push(item.$ref);
      item = resolvePointer(doc, item.$ref);
    }
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const own = [op, item.parameters ?? null];
      ops.push({ key: `${method.toUpperCase()} ${path}`, own: canonicalJson(own), refs: closure([...refsIn(own), ...itemRefs]) });
    }
  }
  // Each referenced node is hashed once, however many operations reach it.
  const refHash = new Map<string, string>();
  await Promise.all(
    [...refDeps.keys()].map(async (ref) => {
      const node = resolvePointer(doc, ref);
      refHash.set(ref, (await sha256Hex(node === undefined ? 'missing' : canonicalJson(node))).slice(0, 16));
    }),
  );
  const out: Record<string, string> = {};
  await Promise.all(
    ops.map(async ({ key, own, refs }) => {
      out[key] = (await sha256Hex(`${own}\n${refs.map((r) => `${r} ${refHash.get(r)}`).join('\n')}`)).slice(0, 12);
    }),
  );
  // Insertion order above depends on when each digest resolved; the caller gets them in key order.
  return Object.fromEntries(ops.map(({ key }) => [key, out[key]!]));
}

/** Operations added, removed and changed between a baseline and the live spec, by "METHOD /path", sorted. */
export function compareOperations(
  before: Readonly<Record<string, string | null>>,
  after: Readonly<Record<string, string>>,
): { added: string[]; removed: string[]; changed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const k of Object.keys(after)) {
    if (!Object.hasOwn(before, k)) added.push(k);
    else if (before[k] !== null && before[k] !== after[k]) changed.push(k);
  }
  for (const k of Object.keys(before)) if (!Object.hasOwn(after, k)) removed.push(k);
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { added: added.sort(byKey), removed: removed.sort(byKey), changed: changed.sort(byKey) };
}
