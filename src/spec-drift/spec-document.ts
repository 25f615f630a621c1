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
 * A document with its object keys sorted at every level (undefined members left out), so that `JSON.stringify` of it,
 * or of any part of it, is canonical: one sorting pass, then V8's native stringify for the digest and for every
 * operation and schema fingerprinted (a replacer function instead, sorting as it goes, was 3x slower).
 */
export interface SortedDocument {
  readonly root: unknown;
  readonly sorted: true;
}

/**
 * `consume`: reorder the document given, which nothing else may read afterwards (the Worker's freshly parsed copy):
 * each subtree is replaced as soon as it is sorted, so about one tree lives at a time rather than two (a 13 MB spec
 * parses into ~40 MB of objects, against an isolate's 128 MB). Otherwise a sorted copy (the generator goes on to
 * build from the original, whose key order the catalogue keeps).
 */
export function sortedDocument(doc: unknown, opts: { consume?: boolean } = {}): SortedDocument {
  return { root: opts.consume ? sortConsuming(doc) : sortCopy(doc), sorted: true };
}

function sortCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortCopy);
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Json)[k];
    if (x !== undefined) out[k] = sortCopy(x);
  }
  return out;
}

function sortConsuming(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = sortConsuming(v[i]);
    return v;
  }
  if (v === null || typeof v !== 'object') return v;
  const o = v as Json;
  const keys = Object.keys(o).sort();
  for (const k of keys) o[k] = sortConsuming(o[k]);
  const out: Json = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Canonical JSON of any value: keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortCopy(value)) ?? 'null';
}

/** The spec's identity: sha256 (first 16 hex) of its canonical JSON, so reformatting or reordering changes nothing. */
export async function specDigest(doc: SortedDocument): Promise<string> {
  return (await sha256Hex(JSON.stringify(doc.root) ?? 'null')).slice(0, 16);
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

/**
 * The version a spec declares, as its specification writes it. YAML reads an unquoted `swagger: 2.0` as the number 2
 * and `openapi: 3.0` as 3, and hand-written specs often have them so; `3.0` and `3.1` name their first patch release.
 */
export function declaredVersion(doc: Record<string, unknown>): string {
  const v = doc.openapi ?? doc.swagger;
  if (typeof v === 'number') return doc.openapi === undefined ? (v === 2 ? '2.0' : String(v)) : v === 3 ? '3.0.0' : v === 3.1 ? '3.1.0' : String(v);
  const s = String(v ?? '');
  return /^3\.[01]$/.test(s) ? `${s}.0` : s;
}

/** The spec's version string when it is OpenAPI 3.0/3.1 or Swagger 2.0 with a `paths` object; else throws. */
export function openApiVersion(doc: unknown): string {
  if (!isObject(doc)) throw new SpecDocumentError('not an OpenAPI document (not an object)');
  const version = declaredVersion(doc);
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
 * plus everything it reaches through local `$ref`s, transitively. So a change to a shared schema changes exactly the
 * operations that use it, and editing anything else (info, tags, servers, unused components) changes none. Swagger
 * 2.0 is fingerprinted as written (`#/definitions/...` are local refs too).
 *
 * Each referenced node gets a deep hash over its own text and the deep hashes of what it references; nodes on a
 * reference cycle (one strongly connected component) share one. That keeps the work linear in the spec: walking
 * every operation's full closure instead took 9 s on Microsoft Graph (11,422 operations).
 *
 * `sha256` may be synchronous: the generator passes node:crypto's, since Web Crypto's asynchronous digests each wait
 * for Node's thread pool (~0.2 ms apiece on a busy machine, and Graph needs ~30,000). Both give the same hex.
 */
export async function operationFingerprints(sorted: SortedDocument, sha256: (text: string) => string | Promise<string> = sha256Hex): Promise<Record<string, string>> {
  const doc = sorted.root;
  if (!isObject(doc) || !isObject(doc.paths)) return {};
  const hash16 = async (text: string) => (await sha256(text)).slice(0, 16);
  // Each operation's own text is hashed at once (kept whole, Graph's would hold tens of MB until the end).
  const ops: Array<{ key: string; own: Promise<string>; refs: string[] }> = [];
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
      ops.push({ key: `${method.toUpperCase()} ${path}`, own: hash16(JSON.stringify(own)), refs: [...new Set([...refsIn(own), ...itemRefs])].sort() });
    }
  }
  const deep = await deepRefHashes(doc, ops.flatMap((o) => o.refs), hash16);
  const out: Record<string, string> = {};
  await Promise.all(
    ops.map(async ({ key, own, refs }) => {
      out[key] = (await sha256(`${await own}\n${refs.map((r) => `${r} ${deep.get(r)}`).join('\n')}`)).slice(0, 12);
    }),
  );
  // Insertion order above depends on when each digest resolved; the caller gets them in key order.
  return Object.fromEntries(ops.map(({ key }) => [key, out[key]!]));
}

/** ref -> a hash of the node and of everything it reaches (Tarjan's components, iteratively, sinks first). */
async function deepRefHashes(doc: unknown, roots: string[], hash16: (text: string) => Promise<string>): Promise<Map<string, string>> {
  const deps = new Map<string, string[]>();
  const pending = [...roots];
  while (pending.length) {
    const ref = pending.pop()!;
    if (deps.has(ref)) continue;
    const d = [...refsIn(resolvePointer(doc, ref))].sort();
    deps.set(ref, d);
    for (const x of d) if (!deps.has(x)) pending.push(x);
  }
  const own = new Map<string, string>();
  await Promise.all(
    [...deps.keys()].map(async (ref) => {
      const node = resolvePointer(doc, ref);
      own.set(ref, await hash16(node === undefined ? 'missing' : (JSON.stringify(node) ?? 'null')));
    }),
  );
  // Tarjan's strongly connected components without recursion (specs nest deeper than the call stack allows).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of [...deps.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ ref: string; i: number }> = [{ ref: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const edges = deps.get(frame.ref)!;
      if (frame.i < edges.length) {
        const to = edges[frame.i++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ ref: to, i: 0 });
        } else if (onStack.has(to)) low.set(frame.ref, Math.min(low.get(frame.ref)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.ref, Math.min(low.get(parent.ref)!, low.get(frame.ref)!));
      if (low.get(frame.ref) === index.get(frame.ref)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.ref);
        components.push(component);
      }
    }
  }
  // Components come out sinks first. Each gets a level one above its highest successor, and each level is hashed in
  // parallel (with Web Crypto's asynchronous digests, one after another would wait on each).
  const componentOf = new Map<string, number>();
  components.forEach((c, i) => c.forEach((m) => componentOf.set(m, i)));
  const successors = components.map((c, i) => [...new Set(c.flatMap((m) => deps.get(m)!.map((d) => componentOf.get(d)!)))].filter((j) => j !== i));
  const level: number[] = [];
  const byLevel: number[][] = [];
  successors.forEach((succ, i) => {
    level[i] = succ.reduce((l, j) => Math.max(l, level[j]! + 1), 0);
    (byLevel[level[i]!] ??= []).push(i);
  });
  const componentHash: string[] = [];
  for (const ids of byLevel) {
    await Promise.all(
      ids.map(async (i) => {
        const members = components[i]!.map((m) => `${m} ${own.get(m)}`).sort();
        const outside = [...new Set(successors[i]!.map((j) => componentHash[j]!))].sort();
        componentHash[i] = await hash16([...members, '->', ...outside].join('\n'));
      }),
    );
  }
  return new Map([...componentOf].map(([ref, i]) => [ref, componentHash[i]!]));
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
