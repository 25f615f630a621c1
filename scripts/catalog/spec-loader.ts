// Loading a spec: file or URL, JSON or YAML, Swagger 2.0 converted to OpenAPI 3.0 (swagger2openapi),
// external $refs bundled into the document (@apidevtools/json-schema-ref-parser). Local refs stay as
// `#/...` pointers: the schema converter resolves them lazily (so it keeps ref names for cycle/depth
// control and never builds a cyclic object graph).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { declaredVersion, operationFingerprints, sortedDocument, specDigest } from '../../src/spec-drift/spec-document.ts';

export interface LoadOptions {
  /** Fetch timeout in ms (default 30 s). */
  timeoutMs?: number;
  /** Extra header for private specs, "Name: value" (or just a value, sent as Authorization). Default: env SPEC_AUTH_HEADER. */
  authHeader?: string;
}

interface LoadedSpec {
  /** OpenAPI 3.x document (converted from 2.0 if needed), local refs only. */
  doc: any;
  /** The spec's own version string: "2.0", "3.0.3", "3.1.0". */
  originalVersion: string;
  /** As given, query string stripped (never secrets). */
  label: string;
  /** Absolute URL of the spec when it came from the network (to resolve relative server URLs). */
  baseUrl?: string;
  /** sha256 (16 hex) of the document as the spec's author wrote it (external refs bundled, before any conversion). */
  digest: string;
  /** Per-operation fingerprints of the same document (src/spec-drift/spec-document.ts), for the Worker's drift check. */
  operations: Record<string, string>;
  warnings: string[];
}

export class SpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpecError';
  }
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

function specLabel(spec: string): string {
  if (!isUrl(spec)) return spec;
  try {
    const u = new URL(spec);
    u.search = '';
    u.hash = '';
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return spec.replace(/[?#].*$/, '');
  }
}

function authHeaderPair(raw: string | undefined): [string, string] | undefined {
  if (!raw) return undefined;
  const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(raw);
  return m ? [m[1]!, m[2]!] : ['Authorization', raw];
}

async function readSource(spec: string, opts: LoadOptions): Promise<{ text: string; baseUrl?: string }> {
  if (isUrl(spec)) {
    const headers: Record<string, string> = { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' };
    const auth = authHeaderPair(opts.authHeader ?? process.env.SPEC_AUTH_HEADER);
    if (auth) headers[auth[0]] = auth[1];
    let res: Response;
    try {
      res = await fetch(spec, { headers, redirect: 'follow', signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
    } catch (e) {
      const err = e as Error;
      const why = err.name === 'TimeoutError' ? `timed out after ${opts.timeoutMs ?? 30_000} ms` : `${err.message}${(err as any).cause ? ` (${(err as any).cause.message ?? (err as any).cause})` : ''}`;
      throw new SpecError(`Cannot fetch spec ${specLabel(spec)}: ${why}`);
    }
    if (!res.ok) throw new SpecError(`Cannot fetch spec ${specLabel(spec)}: HTTP ${res.status} ${res.statusText}`);
    return { text: await res.text(), baseUrl: res.url || spec };
  }
  try {
    return { text: await readFile(spec, 'utf8') };
  } catch (e) {
    throw new SpecError(`Cannot read spec file ${spec}: ${(e as Error).message}`);
  }
}

function parseSpecText(text: string, label: string): any {
  // Parse the text as given (only a BOM removed), so the line numbers in an error are the file's own.
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('{')) {
    try {
      return JSON.parse(body);
    } catch (e) {
      const message = (e as Error).message;
      const at = /position (\d+)/.exec(message);
      throw new SpecError(`Spec ${label} is not valid JSON: ${message}${at ? `\n${excerptAt(body, Number(at[1]))}` : ''}`);
    }
  }
  try {
    return YAML.parse(body, { maxAliasCount: -1, merge: true, intAsBigInt: false });
  } catch (e) {
    // The yaml library's message is one line ending "at line L, column C:" followed by the offending lines and a caret.
    const [first = '', ...context] = (e as Error).message.replace(/\s+$/, '').split('\n');
    const excerpt = context.filter((l, i) => l.trim() || i > 0).join('\n');
    throw new SpecError(`Spec ${label} is neither JSON nor valid YAML: ${first.replace(/:$/, '')}${excerpt ? `\n${excerpt}` : ''}`);
  }
}

/** The line holding character `pos` of `text`, with a caret under it. */
function excerptAt(text: string, pos: number): string {
  const start = text.lastIndexOf('\n', pos - 1) + 1;
  const end = text.indexOf('\n', pos);
  const line = text.slice(start, end < 0 ? undefined : end);
  const col = pos - start;
  // A minified spec is one long line: show the 120 characters around the position.
  const from = Math.max(0, col - 60);
  const shown = line.slice(from, from + 120);
  return `    ${from > 0 ? '…' : ''}${shown}\n    ${' '.repeat(col - from + (from > 0 ? 1 : 0))}^`;
}

function hasExternalRef(node: unknown): boolean {
  const stack: unknown[] = [node];
  while (stack.length) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) if (x && typeof x === 'object') stack.push(x);
    } else if (n && typeof n === 'object') {
      for (const [k, v] of Object.entries(n)) {
        if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) return true;
        if (v && typeof v === 'object') stack.push(v);
      }
    }
  }
  return false;
}

export async function loadSpec(spec: string, opts: LoadOptions = {}): Promise<LoadedSpec> {
  const label = specLabel(spec);
  const { text, baseUrl } = await readSource(spec, opts);
  let doc = parseSpecText(text, label);
  const warnings: string[] = [];
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SpecError(`Spec ${label} is not an object`);
  const originalVersion = declaredVersion(doc);
  if (!/^(2\.0|3\.[01]\.\d+.*)$/.test(originalVersion)) {
    throw new SpecError(`Spec ${label}: unsupported or missing version (openapi/swagger = ${JSON.stringify(doc.openapi ?? doc.swagger ?? null)}); need Swagger 2.0 or OpenAPI 3.0/3.1`);
  }
  if (!doc.paths || typeof doc.paths !== 'object') throw new SpecError(`Spec ${label}: no "paths" object`);

  if (hasExternalRef(doc)) {
    const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser');
    const base = baseUrl ?? pathToFileURL(resolvePath(spec)).href;
    try {
      doc = await $RefParser.bundle(base, doc, {} as never);
    } catch (e) {
      throw new SpecError(`Spec ${label}: cannot resolve external $ref: ${(e as Error).message}`);
    }
  }

  // Keys sorted, so the same document in JSON or YAML, reformatted or reordered, is the same spec. Taken before the
  // 2.0 conversion: a new converter release is a generator change, not a new spec. The Worker's drift check computes
  // both from the live spec with the same functions (docs/operations.md, "Spec drift").
  const sorted = sortedDocument(doc);
  const digest = await specDigest(sorted);
  const operations = await operationFingerprints(sorted, (text) => createHash('sha256').update(text).digest('hex'));

  // The converter and the 3.1 rules read the version as written out (after the digest: that is of the spec as given).
  doc[doc.openapi === undefined ? 'swagger' : 'openapi'] = originalVersion;
  if (originalVersion === '2.0') {
    const { default: s2o } = (await import('swagger2openapi')) as any;
    try {
      const res = await s2o.convertObj(doc, { patch: true, warnOnly: true, resolve: false, direct: false });
      doc = res.openapi;
    } catch (e) {
      throw new SpecError(`Spec ${label}: Swagger 2.0 conversion failed: ${(e as Error).message}`);
    }
  }
  return { doc, originalVersion, label, baseUrl, digest, operations, warnings };
}
