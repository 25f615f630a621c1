// buildCatalogue(spec, options): OpenAPI spec (file or URL) -> Catalogue + deterministic text + report.
// In-process API used by the CLI (scripts/catalog/cli.ts), the serve script and tests.
import type { BodyBinding, Catalogue, CatalogueTool, HttpBinding, JsonSchema, ParamBinding, ParamLocation, ParamStyle } from '../../src/catalogue/types.ts';
import { keepRenamedAliases, type Rename } from './aliases.ts';
import { loadSpec, type LoadOptions } from './load.ts';
import { NAME_BUDGET } from './name-budget.ts';
import { argName, nameTools, snake, toIdentifier, TOOL_NAME_RE } from './naming.ts';
import { loadOverrides, OverridesError, validateOverridesShape, type Overrides } from './overrides.ts';
import { diffCatalogues, type ChangeSummary } from './report.ts';
import { SchemaConverter, schemaSize, trimText, type ConvertLimits } from './schema.ts';
import { serializeCatalogue } from './serialize.ts';
import { scopesOf, toolTitle, withScopeLine } from './titles.ts';

// Padded standard base64, so every schema-valid value is one the worker can decode
// (contentEncoding alone is only an annotation; validators do not check it).
const BASE64_STRING = {
  type: 'string',
  contentEncoding: 'base64',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
} as const;

export { SpecError } from './load.ts';
export { OverridesError } from './overrides.ts';
export type { Overrides, ToolOverride } from './overrides.ts';
export type { ChangeSummary } from './report.ts';

export interface BuildOptions {
  /** Max tool name length (default NAME_BUDGET, docs/naming.md). */
  maxName?: number;
  /** Overrides file path, or an already-parsed object. Unknown tool names are an error. */
  overrides?: string | Overrides | null;
  /** Text of the previous catalogue (e.g. the committed catalog.txt) for the change report. */
  previous?: string | null;
  /** Tool description budget in characters (default 1024). */
  descriptionMax?: number;
  /**
   * Check every schema with Ajv (draft-07, as the v1 SDK client) and repair (inputs) or drop (outputs) what fails.
   * true (default): meta-schema validation only, fast; 'full': compile each schema (≈+3 s on GitHub); false: off.
   */
  sweep?: boolean | 'full';
  /** Progress lines (e.g. to stderr). */
  progress?: (line: string) => void;
  /** Fetch options for URL specs (timeout, auth header; default auth from env SPEC_AUTH_HEADER). */
  load?: LoadOptions;
}

export interface WarningGroup {
  count: number;
  examples: string[];
}

export interface BuildReport {
  spec: string;
  openapi: string;
  operations: number;
  tools: number;
  hidden: string[];
  withOutputSchema: number;
  wrappedOutputs: number;
  withoutOutputSchema: number;
  dropped: { tool: string; reason: string }[];
  warnings: Record<string, WarningGroup>;
  /** Differences against `options.previous`, when given. */
  changes?: ChangeSummary;
  /** Tool names (docs/naming.md): the budget, how many were shortened, the hashed ones, deprecated aliases kept. */
  names: { budget: number; shortened: number; hashed: string[]; deprecated: Rename[]; skipped: Rename[] };
  hash: string;
  bytes: number;
  ms: number;
}

export interface BuildResult {
  catalogue: Catalogue;
  text: string;
  report: BuildReport;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const LOC_ORDER: ParamLocation[] = ['path', 'query', 'header', 'cookie'];
const STYLES = new Set<unknown>(['simple', 'label', 'matrix', 'form', 'spaceDelimited', 'pipeDelimited', 'deepObject']);
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const INPUT_DESC = 400;
const OUTPUT_DESC = 120;
const INPUT_DEPTHS = [8, 6, 4, 3, 2, 1];
const OUTPUT_DEPTHS = [6, 5, 4, 3, 2, 1, 0];
const INPUT_BUDGET = 60_000;
const OUTPUT_BUDGET = 24_000;

const isObj = (x: unknown): x is Record<string, any> => !!x && typeof x === 'object' && !Array.isArray(x);

export function isJsonMediaType(mt: string): boolean {
  const m = mt.toLowerCase().split(';')[0]!.trim();
  if (m === '*/*' || m === 'application/*') return true;
  if (/(nd|l)json|json-seq/.test(m)) return false;
  return m === 'application/json' || m === 'text/json' || m.endsWith('+json') || /^[a-z]+\/([a-z0-9.-]*[.-])?json$/.test(m);
}

function isBinarySchema(conv: SchemaConverter, s: unknown): boolean {
  const r = conv.deref(s);
  return isObj(r) && (r.type === 'file' || (r.type === 'string' && r.format === 'binary'));
}

interface Op {
  key: string;
  method: (typeof METHODS)[number];
  path: string;
  op: Record<string, any>;
  pathParams: unknown[];
}

function serverUrl(doc: any, baseUrl?: string): string {
  const s = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!isObj(s) || typeof s.url !== 'string') return baseUrl ? new URL('/', baseUrl).toString().replace(/\/$/, '') : '';
  let url = s.url.replace(/\{([^}]+)\}/g, (_m: string, v: string) => {
    const d = s.variables?.[v];
    return String(d?.default ?? d?.enum?.[0] ?? '');
  });
  if (baseUrl && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      url = new URL(url, baseUrl).toString();
    } catch {
      /* keep */
    }
  }
  return url.replace(/\/+$/, '');
}

function pathToolset(path: string): string {
  const seg = path.split('/').filter((s) => s && !/^\{.*\}$/.test(s) && !/^v\d+(\.\d+)*$/i.test(s) && s.toLowerCase() !== 'api')[0];
  return seg ? toIdentifier(seg, 'ts') : 'default';
}

export async function buildCatalogue(spec: string, options: BuildOptions = {}): Promise<BuildResult> {
  const t0 = performance.now();
  const maxName = options.maxName ?? NAME_BUDGET;
  if (!Number.isInteger(maxName) || maxName < 12 || maxName > 64) throw new Error(`maxName must be an integer in 12..64 (got ${maxName})`);
  const descMax = options.descriptionMax ?? 1024;
  const progress = options.progress ?? (() => {});

  // Overrides first: a bad overrides file fails fast before the (slow) build.
  let overrides: Overrides = { tools: {} };
  if (typeof options.overrides === 'string') overrides = await loadOverrides(options.overrides);
  else if (options.overrides) overrides = validateOverridesShape(options.overrides, 'overrides');

  progress(`[catalog] loading ${spec}`);
  const loaded = await loadSpec(spec, options.load);
  const doc = loaded.doc;

  const warnings: Record<string, WarningGroup> = {};
  const warn = (kind: string, detail: string) => {
    const g = (warnings[kind] ??= { count: 0, examples: [] });
    g.count++;
    if (g.examples.length < 5) g.examples.push(detail);
  };
  const conv = new SchemaConverter(doc, warn);

  // ---- collect operations
  const ops: Op[] = [];
  for (const [path, item0] of Object.entries(doc.paths ?? {})) {
    const item = conv.deref(item0);
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      ops.push({ key: `${method.toUpperCase()} ${path}`, method, path, op, pathParams: Array.isArray(item.parameters) ? item.parameters : [] });
    }
  }
  ops.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const naming = nameTools(
    ops.map((o) => ({ key: o.key, operationId: typeof o.op.operationId === 'string' ? o.op.operationId : undefined, method: o.method, path: o.path, tags: Array.isArray(o.op.tags) ? o.op.tags.filter((t: unknown) => typeof t === 'string') : [], summary: typeof o.op.summary === 'string' ? o.op.summary : undefined })),
    maxName,
  );
  const names = naming.names;
  const scopes = scopesOf(ops);
  progress(`[catalog] ${ops.length} operations`);

  // ---- toolsets from tags
  const tagDesc = new Map<string, string>();
  for (const t of Array.isArray(doc.tags) ? doc.tags : []) {
    if (isObj(t) && typeof t.name === 'string') tagDesc.set(toIdentifier(t.name, 'ts'), typeof t.description === 'string' ? t.description : '');
  }

  let sweeper: Sweeper | undefined;
  if (options.sweep !== false) sweeper = await Sweeper.create(options.sweep === 'full');

  const tools: CatalogueTool[] = [];
  const generatedToolsets = new Map<string, string>();
  let i = 0;
  for (const o of ops) {
    if (++i % 200 === 0) progress(`[catalog] ${i}/${ops.length} operations`);
    const name = names.get(o.key)!;
    const tool = buildTool(conv, o, name, descMax, warn);
    tool.description = withScopeLine(tool.description, scopes.get(o.key), descMax, typeof o.op.summary === 'string' ? o.op.summary : '');
    const tags = (Array.isArray(o.op.tags) ? o.op.tags : []).filter((t: unknown) => typeof t === 'string' && snake(t as string));
    tool.toolsets = tags.length ? [...new Set(tags.map((t: string) => toIdentifier(t, 'ts')))].sort() : [pathToolset(o.path)];
    for (const ts of tool.toolsets) {
      if (!generatedToolsets.has(ts)) {
        const orig = (Array.isArray(o.op.tags) ? o.op.tags : []).find((t: string) => toIdentifier(t, 'ts') === ts) ?? ts;
        generatedToolsets.set(ts, trimText(tagDesc.get(ts) || `Operations tagged "${orig}".`, 300));
      }
    }
    if (sweeper) sweeper.check(tool, warn);
    tools.push(tool);
  }

  // ---- overrides
  const byName = new Map(tools.map((t) => [t.name, t]));
  const unknown = Object.keys(overrides.tools).filter((n) => !byName.has(n));
  if (unknown.length) {
    throw new OverridesError(`overrides name tools that this spec does not generate: ${unknown.join(', ')}`);
  }
  const hidden: string[] = [];
  for (const [n, ov] of Object.entries(overrides.tools).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const t = byName.get(n)!;
    if (ov.hidden) hidden.push(n);
    if (ov.title) {
      t.title = ov.title;
      t.annotations.title = ov.title;
    }
    if (ov.description) t.description = ov.description;
    if (ov.toolsets) t.toolsets = [...new Set(ov.toolsets)].sort();
    if (ov.outputSchema === false) {
      delete t.outputSchema;
      delete t.outputWrapped;
      t.outputSchemaDropped = `override: ${ov.reason}`;
    }
    if (ov.rename && ov.rename !== n) {
      t.aliases = [...new Set([...(t.aliases ?? []), n])].sort();
      t.name = ov.rename;
    }
  }
  // Bulk toolset membership (curated groups): added on top of tag or per-tool toolsets.
  for (const [ts, def] of Object.entries(overrides.toolsets ?? {})) {
    const missing = (def.tools ?? []).filter((n) => !byName.has(n));
    if (missing.length) throw new OverridesError(`overrides toolsets.${ts}.tools name tools that this spec does not generate: ${missing.join(', ')}`);
    for (const n of def.tools ?? []) byName.get(n)!.toolsets = [...new Set([...byName.get(n)!.toolsets, ts])].sort();
  }
  const hiddenSet = new Set(hidden.map((n) => byName.get(n)!));
  const visible = tools.filter((t) => !hiddenSet.has(t));
  const seen = new Map<string, string>();
  for (const t of visible) {
    for (const n of [t.name, ...(t.aliases ?? [])]) {
      const prev = seen.get(n);
      if (prev) throw new OverridesError(`overrides: name "${n}" is used by two tools (${prev} and ${t.http.method} ${t.http.path})`);
      seen.set(n, `${t.http.method} ${t.http.path}`);
    }
  }

  const toolsets: Record<string, { description: string }> = {};
  for (const ts of [...new Set(visible.flatMap((t) => t.toolsets))].sort()) {
    toolsets[ts] = { description: overrides.toolsets?.[ts]?.description ?? generatedToolsets.get(ts) ?? `Tools in "${ts}".` };
  }

  const defaultToolsets = overrides.defaultToolsets ? [...new Set(overrides.defaultToolsets)].sort() : undefined;
  const unknownDefaults = (defaultToolsets ?? []).filter((d) => !(d in toolsets));
  if (unknownDefaults.length) throw new OverridesError(`overrides defaultToolsets name toolsets this catalogue does not have: ${unknownDefaults.join(', ')}`);

  const info = isObj(doc.info) ? doc.info : {};
  const catalogue: Catalogue = {
    format: 1,
    source: { title: String(info.title ?? ''), version: String(info.version ?? ''), spec: loaded.label, openapi: loaded.originalVersion },
    defaultUpstream: serverUrl(doc, loaded.baseUrl),
    toolsets,
    ...(defaultToolsets ? { defaultToolsets } : {}),
    tools: visible.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  let previous: Catalogue | undefined;
  if (options.previous) {
    try {
      previous = JSON.parse(options.previous) as Catalogue;
    } catch {
      warn('previous-unreadable', 'previous catalogue is not valid JSON; no change report, no deprecated aliases');
    }
  }
  const aliases = keepRenamedAliases(catalogue, previous);
  const { text, hash } = serializeCatalogue(catalogue);
  (catalogue as Catalogue & { hash?: string }).hash = hash;
  const changes = previous ? diffCatalogues(previous, catalogue) : undefined;
  const listedNames = new Set(visible.map((t) => t.name));
  const hashedNames = naming.hashed.map((k) => names.get(k)!).filter((n) => listedNames.has(n)).sort();
  if (hashedNames.length) progress(`[catalog] ${hashedNames.length} tool names needed a hash suffix: ${hashedNames.join(', ')}`);
  const report: BuildReport = {
    spec: loaded.label,
    openapi: loaded.originalVersion,
    operations: ops.length,
    tools: visible.length,
    hidden: hidden.sort(),
    withOutputSchema: visible.filter((t) => t.outputSchema).length,
    wrappedOutputs: visible.filter((t) => t.outputWrapped).length,
    withoutOutputSchema: visible.filter((t) => !t.outputSchema).length,
    dropped: visible.filter((t) => t.outputSchemaDropped).map((t) => ({ tool: t.name, reason: t.outputSchemaDropped! })),
    warnings: Object.fromEntries(Object.entries(warnings).sort(([a], [b]) => (a < b ? -1 : 1))),
    changes,
    names: { budget: maxName, shortened: naming.shortened.length, hashed: hashedNames, deprecated: aliases.deprecated, skipped: aliases.skipped },
    hash,
    bytes: Buffer.byteLength(text),
    ms: Math.round(performance.now() - t0),
  };
  progress(`[catalog] ${visible.length} tools, ${(report.bytes / 1e6).toFixed(2)} MB in ${report.ms} ms`);
  return { catalogue, text, report };
}

// ---------------------------------------------------------------------------------------------

function convertWithBudget(conv: SchemaConverter, schema: unknown, mode: 'input' | 'output', where: string, warn: (k: string, d: string) => void): JsonSchema {
  const depths = mode === 'input' ? INPUT_DEPTHS : OUTPUT_DEPTHS;
  const budget = mode === 'input' ? INPUT_BUDGET : OUTPUT_BUDGET;
  const descMax = mode === 'input' ? INPUT_DESC : OUTPUT_DESC;
  let out: JsonSchema = {};
  for (let i = 0; i < depths.length; i++) {
    const limits: ConvertLimits = { depth: depths[i]!, descMax };
    out = conv.convert(schema, mode, limits, where);
    if (schemaSize(out) <= budget || i === depths.length - 1) {
      if (i > 0) warn('size-budget', `${where}: ${mode} schema cut to depth ${depths[i]} to fit ${budget} bytes`);
      return out;
    }
  }
  return out;
}

function buildTool(conv: SchemaConverter, o: Op, name: string, descMax: number, warn: (k: string, d: string) => void): CatalogueTool {
  const { op, method, path } = o;
  const where = `${method.toUpperCase()} ${path}`;

  // ---- parameters (path-level, overridden by operation-level with the same in+name)
  const pmap = new Map<string, Record<string, any>>();
  for (const p0 of [...o.pathParams, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const p = conv.deref(p0);
    if (!isObj(p) || typeof p.name !== 'string' || !LOC_ORDER.includes(p.in)) continue;
    if (p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    pmap.set(`${p.in}:${p.name}`, p);
  }
  for (const m of path.matchAll(/\{([^}]+)\}/g)) {
    if (!pmap.has(`path:${m[1]}`)) {
      warn('missing-path-param', `${where}: path parameter {${m[1]}} is not declared; added as a string`);
      pmap.set(`path:${m[1]}`, { name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  const plist = [...pmap.values()].sort((a, b) => LOC_ORDER.indexOf(a.in) - LOC_ORDER.indexOf(b.in));

  const used = new Set<string>();
  const uniqueArg = (wire: string, prefix: string): string => {
    const a = argName(wire);
    if (!used.has(a)) return used.add(a), a;
    let cand = argName(`${prefix}_${a}`);
    for (let k = 2; used.has(cand); k++) cand = argName(`${prefix}_${a}_${k}`);
    warn('arg-clash', `${where}: ${prefix} "${wire}" clashes with another argument; renamed to ${cand}`);
    used.add(cand);
    return cand;
  };

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: ParamBinding[] = [];
  for (const p of plist) {
    const loc = p.in as ParamLocation;
    let schema = p.schema;
    if (!schema && isObj(p.content)) {
      const first = Object.values(p.content)[0] as any;
      schema = first?.schema;
      warn('param-content', `${where}: parameter ${p.name} uses "content"; its value is sent as given`);
    }
    const arg = uniqueArg(p.name, loc);
    const s: JsonSchema = { ...convertWithBudget(conv, schema ?? { type: 'string' }, 'input', `${where} ${loc}:${p.name}`, warn) };
    const d = [typeof p.description === 'string' ? p.description : '', p.deprecated ? 'Deprecated.' : ''].filter(Boolean).join(' ');
    if (d) s.description = trimText(d, INPUT_DESC);
    properties[arg] = s;
    const req = loc === 'path' || p.required === true;
    if (req) required.push(arg);
    const style: ParamStyle = STYLES.has(p.style) ? (p.style as ParamStyle) : loc === 'query' || loc === 'cookie' ? 'form' : 'simple';
    const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
    const b: ParamBinding = { arg, name: p.name, in: loc, style, explode, required: req };
    if (p.allowReserved === true) b.allowReserved = true;
    params.push(b);
  }

  // ---- request body
  let body: BodyBinding | undefined;
  const rb = conv.deref(op.requestBody);
  if (isObj(rb) && isObj(rb.content) && Object.keys(rb.content).length) {
    const mts = Object.keys(rb.content);
    const lower = (m: string) => m.toLowerCase().split(';')[0]!.trim();
    const pick =
      mts.find((m) => isJsonMediaType(m) && lower(m) !== '*/*') ??
      mts.find((m) => lower(m) === 'application/x-www-form-urlencoded') ??
      mts.find((m) => lower(m) === 'multipart/form-data') ??
      mts.find((m) => lower(m) === 'application/octet-stream') ??
      mts[0]!;
    const media = conv.deref(rb.content[pick]) ?? {};
    const bodyRequired = rb.required === true;
    const kind = lower(pick);
    const isForm = kind === 'application/x-www-form-urlencoded' || kind.startsWith('multipart/');
    const schema = media.schema;
    const flat = isJsonMediaType(pick) || isForm ? flattenObject(conv, schema) : undefined;
    if (flat) {
      const props: Record<string, string> = {};
      const fileFields: string[] = [];
      for (const [pn, ps] of flat.props) {
        if (conv.flag(ps, 'readOnly')) continue;
        const arg = uniqueArg(pn, 'body');
        props[arg] = pn;
        let s: JsonSchema;
        if (kind.startsWith('multipart/') && isBinarySchema(conv, ps)) {
          fileFields.push(pn);
          const r = conv.deref(ps);
          s = {
            type: 'object',
            properties: {
              data: { ...BASE64_STRING, description: 'File content, base64-encoded.' },
              filename: { type: 'string' },
              contentType: { type: 'string', description: 'Media type of the file, e.g. image/png.' },
            },
            required: ['data'],
          };
          if (typeof r.description === 'string') s.description = trimText(r.description, INPUT_DESC);
        } else {
          s = convertWithBudget(conv, ps, 'input', `${where} body.${pn}`, warn);
        }
        properties[arg] = s;
        if (bodyRequired && flat.required.has(pn)) required.push(arg);
      }
      body = { mediaType: pick, required: bodyRequired, mode: 'merged', props };
      if (fileFields.length) body.fileFields = fileFields;
    } else {
      const arg = uniqueArg('body', 'request');
      let s: JsonSchema;
      let binary = false;
      if (isJsonMediaType(pick) || isForm) {
        s = { ...convertWithBudget(conv, schema ?? {}, 'input', `${where} body`, warn) };
      } else if (kind.startsWith('text/') && !isBinarySchema(conv, schema)) {
        s = { type: 'string' };
      } else {
        binary = true;
        s = { ...BASE64_STRING, description: `Request body (${pick}), base64-encoded.` };
      }
      const rd = typeof rb.description === 'string' ? rb.description : '';
      if (rd && !binary) s.description = trimText(rd, INPUT_DESC);
      properties[arg] = s;
      if (bodyRequired) required.push(arg);
      body = { mediaType: pick, required: bodyRequired, mode: 'wrapped', arg };
      if (binary) body.binary = true;
    }
    if (isForm && isObj(media.encoding)) {
      const enc: NonNullable<BodyBinding['encoding']> = {};
      for (const [k, e] of Object.entries(media.encoding).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!isObj(e)) continue;
        const x: { style?: ParamStyle; explode?: boolean; contentType?: string } = {};
        if (STYLES.has(e.style)) x.style = e.style as ParamStyle;
        if (typeof e.explode === 'boolean') x.explode = e.explode;
        if (typeof e.contentType === 'string') x.contentType = e.contentType;
        if (Object.keys(x).length) enc[k] = x;
      }
      if (Object.keys(enc).length) body.encoding = enc;
    }
  }

  const inputSchema: JsonSchema = { type: 'object', properties };
  if (required.length) inputSchema.required = [...new Set(required)];

  // ---- responses
  const accept: string[] = [];
  const outSchemas: unknown[] = [];
  const outKeys = new Set<string>();
  let emptySuccess = false; // a 2xx without JSON (e.g. 204 next to 200): the worker sends {} / {result: null}
  const responses = isObj(op.responses) ? op.responses : {};
  for (const code of Object.keys(responses)) {
    if (!/^2(\d\d|xx)$/i.test(code)) continue;
    const r = conv.deref(responses[code]);
    if (!isObj(r) || !isObj(r.content) || Object.keys(r.content).length === 0) {
      emptySuccess = true;
      continue;
    }
    if (!Object.keys(r.content).some(isJsonMediaType)) emptySuccess = true;
    let tookSchema = false;
    for (const [mt, m0] of Object.entries(r.content)) {
      if (!accept.includes(mt)) accept.push(mt);
      const m = conv.deref(m0);
      if (tookSchema || !isJsonMediaType(mt) || !isObj(m) || m.schema === undefined) continue;
      if (isBinarySchema(conv, m.schema)) continue;
      tookSchema = true;
      const k = JSON.stringify(m.schema);
      if (!outKeys.has(k)) {
        outKeys.add(k);
        outSchemas.push(m.schema);
      }
    }
  }
  let outputSchema: JsonSchema | undefined;
  let outputWrapped = false;
  if (outSchemas.length) {
    const raw = outSchemas.length === 1 ? outSchemas[0] : { anyOf: outSchemas };
    let root = convertWithBudget(conv, raw, 'output', `${where} response`, warn);
    if (isObjectish(root) && !Array.isArray(root.type)) {
      root = { ...root, type: 'object' };
    } else {
      if (emptySuccess) root = nullableResult(root);
      root = { type: 'object', properties: { result: root }, required: ['result'] };
      outputWrapped = true;
    }
    outputSchema = root;
  }

  // ---- text
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const longDesc = typeof op.description === 'string' ? op.description.trim() : '';
  const title = toolTitle(op, method, path);
  let description = summary && longDesc && !longDesc.startsWith(summary) ? `${summary}\n\n${longDesc}` : longDesc || summary || `${method.toUpperCase()} ${path}`;
  if (op.deprecated === true) description = `[Deprecated] ${description}`;
  description = trimText(description, descMax);

  const M = method.toUpperCase() as HttpBinding['method'];
  const tool: CatalogueTool = {
    name,
    title,
    description,
    inputSchema,
    annotations: {
      title,
      readOnlyHint: M === 'GET' || M === 'HEAD',
      destructiveHint: M === 'DELETE',
      idempotentHint: M === 'PUT' || M === 'DELETE',
      openWorldHint: true,
    },
    toolsets: [],
    http: { method: M, path, params, accept, ...(body ? { body } : {}) },
  };
  if (outputSchema) {
    tool.outputSchema = outputSchema;
    if (outputWrapped) tool.outputWrapped = true;
  }
  return tool;
}

function nullableResult(s: JsonSchema): JsonSchema {
  if (Object.keys(s).length === 0) return s;
  if (typeof s.type === 'string') return s.type === 'null' ? s : { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

function isObjectish(s: JsonSchema): boolean {
  if (s.type === 'object') return true;
  if (s.type !== undefined) return false;
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).every(isObjectish);
  if (isObj(s.properties)) return true;
  if (Array.isArray(s.allOf)) return (s.allOf as JsonSchema[]).some(isObjectish);
  return false;
}

/** Properties of an object body (following $ref and allOf). Undefined when the body is not a plain object with properties. */
function flattenObject(conv: SchemaConverter, schema: unknown, guard = 0): { props: [string, unknown][]; required: Set<string> } | undefined {
  const s = conv.deref(schema);
  if (!isObj(s) || guard > 20) return undefined;
  if ((Array.isArray(s.oneOf) && s.oneOf.length) || (Array.isArray(s.anyOf) && s.anyOf.length)) return undefined;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.some((t: string) => t !== 'object')) return undefined;
  const props = new Map<string, unknown>();
  const required = new Set<string>();
  if (Array.isArray(s.allOf)) {
    for (const m of s.allOf) {
      const f = flattenObject(conv, m, guard + 1);
      if (!f) return undefined;
      for (const [k, v] of f.props) props.set(k, v);
      for (const r of f.required) required.add(r);
    }
  }
  if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) props.set(k, v);
  if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
  if (props.size === 0) return undefined;
  return { props: [...props.entries()], required };
}

// ---- Ajv sweep: compile like the v1 SDK client (draft-07, strict:false, formats) plus meta-schema validation.
class Sweeper {
  private ajv: any;
  private full: boolean;
  private constructor(ajv: any, full: boolean) {
    this.ajv = ajv;
    this.full = full;
  }
  static async create(full: boolean): Promise<Sweeper | undefined> {
    try {
      const { default: Ajv } = (await import('ajv')) as any;
      const { default: addFormats } = (await import('ajv-formats')) as any;
      const ajv = new Ajv({ strict: false, validateFormats: true, allErrors: false, logger: false, code: { optimize: false } });
      addFormats(ajv);
      return new Sweeper(ajv, full);
    } catch {
      return undefined; // Ajv is a dev dependency; the sweep is skipped where it is not installed.
    }
  }
  private ok(schema: JsonSchema): string | undefined {
    if (!this.full) {
      // Cheap path: draft-07 meta-schema validation (no code generation). The converter already
      // guarantees the rest (patterns compile with 'u', no $ref). `sweep: 'full'` compiles for real.
      if (this.ajv.validateSchema(schema)) return undefined;
      return this.ajv.errorsText(this.ajv.errors);
    }
    try {
      this.ajv.compile(schema);
      return undefined;
    } catch (e) {
      return (e as Error).message.split('\n')[0];
    } finally {
      this.ajv.removeSchema();
    }
  }
  check(tool: CatalogueTool, warn: (k: string, d: string) => void): void {
    if (tool.outputSchema) {
      const err = this.ok(tool.outputSchema);
      if (err) {
        delete tool.outputSchema;
        delete tool.outputWrapped;
        tool.outputSchemaDropped = `sweep: Ajv (draft-07) rejected the converted schema: ${trimText(err, 200)}`;
        warn('output-dropped', `${tool.name}: ${err}`);
      }
    }
    const err = this.ok(tool.inputSchema);
    if (err) {
      const props = tool.inputSchema.properties as Record<string, JsonSchema>;
      for (const [k, v] of Object.entries(props)) {
        const e2 = this.ok({ type: 'object', properties: { [k]: v } });
        if (e2) {
          props[k] = typeof v.description === 'string' ? { description: v.description } : {};
          warn('input-property-loosened', `${tool.name}.${k}: ${e2}`);
        }
      }
    }
  }
}

export { TOOL_NAME_RE };
