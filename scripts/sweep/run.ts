// runSweep(): build + serve a catalogue in workerd behind a drifting upstream, call every (sampled)
// tool with both strict clients, classify every call. Used by the CLI (scripts/sweep/cli.ts), CI and tests.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue, CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { PROFILE_IDS } from '../../src/profiles/profiles.ts';
import { buildCatalogue } from '../catalog/build.ts';
import { readCatalogueDir, writeCatalogueDir } from '../catalog/catalogue-files.ts';
import { loadSpec } from '../catalog/spec-loader.ts';
import { typicalProjection } from '../catalog/typical-projection.ts';
import { GITHUB_SPEC, mockableSpec, startPrism, type Running } from '../lib/prism.ts';
import { repoRoot } from '../lib/proc.ts';
import { startWranglerDev } from '../lib/wrangler.ts';
import { generateArgs } from './args.ts';
import { CLASSES, classifyError, classifyResult, connectClient, type CallClass, type ClientName, type ToolSeenByClient, type SweepClient } from './clients.ts';
import { SpecIndex, startBuiltinMock, startDriftProxy, type DriftProxy, type DriftStats } from './drift.ts';
import { listingProblems } from './listing-rules.ts';

const SWEEP_KEY = 'mcp_test_sweep0000000000000000000000000000';

interface SweepOptions {
  /** Spec file or URL. Omitted: the embedded catalogue (catalog/catalog.txt) and the spec it was built from. */
  spec?: string;
  /** Real upstream base URL; the drift proxy fronts it instead of a Prism mock. */
  upstream?: string;
  /** Argument sets per tool (each is called by both clients). Default 3. */
  calls?: number;
  /** Call only this many tools, picked deterministically (stable hash order). Default: all. */
  sample?: number;
  /** Only these tools (names). */
  tools?: string[];
  /** Only read-only tools (advisable with a real --upstream). */
  readOnly?: boolean;
  /** Overrides file used for the build (and by --write-overrides). */
  overrides?: string;
  /** Mock upstream when no --upstream: prism (default; falls back to builtin when Prism cannot start) or builtin. */
  mock?: 'prism' | 'builtin';
  /** Prism startup timeout, ms (default 420 s). */
  prismTimeoutMs?: number;
  /** Parallel tools in flight. Default 3. */
  concurrency?: number;
  /** Drift options (all on by default). */
  drift?: { extras?: boolean; nulls?: boolean; values?: boolean };
  progress?: (line: string) => void;
}

interface CallRecord {
  client: ClientName;
  variant: number;
  class: CallClass;
  side?: 'server' | 'client';
  detail?: string;
  ms: number;
}

export interface ToolReport {
  tool: string;
  /** The name in the overrides file (the generated name; differs from `tool` after a rename). */
  overrideKey: string;
  hasOutputSchema: boolean;
  counts: Record<CallClass, number>;
  /** Argument sets the generator produced that failed the tool's own inputSchema (generator limits). */
  invalidArgSets: number;
  /** First few non-ok calls, with the arguments that produced them. */
  examples: Array<CallRecord & { args: Record<string, unknown> }>;
}

export interface SweepReport {
  spec: string;
  upstream: string;
  startedAt: string;
  ms: number;
  catalogue: {
    title: string;
    tools: number;
    /** Tools whose success response is JSON. */
    jsonTools: number;
    /** Of those, tools that keep their outputSchema. */
    withOutputSchema: number;
    keptRatio: number;
  };
  list: Record<ClientName, { ok: boolean; tools: number; ms: number; error?: string }>;
  /** What the v1 client listed, in the default and every client profile, that breaks a client rule (listing-rules.ts). */
  listingProblems: string[];
  sampled: number;
  calls: number;
  /** Destructive calls the server asked the v2 client to confirm first (each accepted, then run). */
  confirmations: number;
  totals: Record<CallClass, number>;
  drift: DriftStats;
  tools: ToolReport[];
  /** Tools that advertise an outputSchema and had results failing it (server- or client-side). */
  failingSchemaTools: string[];
  /** Tools with an isError result for a call the upstream answered with a success. */
  errorOn2xxTools: string[];
  /** Any protocol or transport failure, an isError on an upstream 2xx, or a failed listing. */
  failed: boolean;
}

const zero = (): Record<CallClass, number> => Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<CallClass, number>;

function sampleTools<T extends { name: string }>(tools: T[], n: number | undefined): T[] {
  if (!n || n >= tools.length) return tools;
  // node:crypto, not src/lib/bytes.ts: a sort comparator needs a synchronous hash (SHA-1 order fixes the sample).
  const h = (s: string) => createHash('sha1').update(s).digest('hex');
  return [...tools].sort((a, b) => (h(a.name) < h(b.name) ? -1 : 1)).slice(0, n);
}

async function pool<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export async function runSweep(opts: SweepOptions): Promise<SweepReport> {
  const t0 = Date.now();
  const log = opts.progress ?? (() => {});
  const running: Array<{ stop(): Promise<void> }> = [];
  let proxy: DriftProxy | undefined;
  let tmp: string | undefined;
  try {
    // 1. The catalogue: built from --spec into a temp dir, or the embedded one.
    let catalogue: Catalogue;
    let catalogueDir: string | undefined;
    let specForMock: string;
    if (opts.spec) {
      log(`building catalogue from ${opts.spec} …`);
      const built = await buildCatalogue(opts.spec, { overrides: opts.overrides ?? null, progress: undefined });
      catalogue = built.catalogue;
      tmp = catalogueDir = await mkdtemp(join(tmpdir(), 'mcp-sweep-'));
      await writeCatalogueDir(catalogueDir, built);
      specForMock = opts.spec;
    } else {
      catalogue = await readCatalogueDir(join(repoRoot, 'catalog'));
      const src = catalogue.source.spec;
      specForMock = src && !/^https?:/.test(src) ? join(repoRoot, src) : src || join(repoRoot, GITHUB_SPEC);
    }
    const spec = await loadSpec(specForMock);
    const idx = new SpecIndex(spec.doc);
    // Tools with a JSON success body: the generator gave them an outputSchema or says why not (a 204 declared as
    // application/json, for one, has no body and counts as neither).
    const jsonTools = catalogue.tools.filter((t) => t.outputSchema || t.outputSchemaDropped);
    const withOutputSchema = jsonTools.filter((t) => t.outputSchema).length;
    log(`catalogue: ${catalogue.tools.length} tools, ${withOutputSchema}/${jsonTools.length} JSON tools keep an outputSchema`);

    // 2. Upstream (Prism unless --upstream) behind the drift proxy.
    let upstream = opts.upstream;
    let upstreamLabel = opts.upstream ?? '';
    if (!upstream && (opts.mock ?? 'prism') === 'prism') {
      log(`starting Prism (dynamic) for ${specForMock} …`);
      // Prism enforces the spec's security requirements; the worker sends no upstream credentials in key mode.
      tmp ??= await mkdtemp(join(tmpdir(), 'mcp-sweep-'));
      try {
        const prism: Running = await startPrism({ spec: await mockableSpec(specForMock, tmp), timeoutMs: opts.prismTimeoutMs ?? 420_000 });
        running.push(prism);
        upstream = prism.url;
        upstreamLabel = 'prism (dynamic) + drift';
      } catch (err) {
        log(`Prism did not start (${String((err as Error).message).split('\n')[0]}); using the built-in mock`);
      }
    }
    if (!upstream) {
      const mock = await startBuiltinMock(idx);
      running.push({ stop: mock.close });
      upstream = mock.url;
      upstreamLabel = 'builtin mock + drift';
    }
    proxy = await startDriftProxy(upstream, idx, opts.drift);
    log(`drift proxy ${proxy.url} -> ${upstream}`);

    // 3. The worker.
    log('starting wrangler dev …');
    const worker = await startWranglerDev({
      ...(catalogueDir ? { catalogueDir } : {}),
      // The sweep measures the catalogue as built: the worker must not drop failing schemas by itself mid-run. The
      // mock takes no credentials, so the spec's security schemes are not applied (no call refused for want of one).
      vars: { UPSTREAM_URL: proxy.url, CREDENTIAL_MODE: 'key', API_KEY: SWEEP_KEY, SCHEMA_AUTODROP_THRESHOLD: '0', UPSTREAM_SECURITY: 'ignore' },
    });
    running.push(worker);
    log(`worker ready at ${worker.endpoint} in ${(worker.startMs / 1000).toFixed(1)} s`);

    // 4. Both clients list the whole slice.
    const clients: SweepClient[] = [];
    const list = {} as SweepReport['list'];
    let listed: ToolSeenByClient[] = [];
    let problems: string[] = [];
    for (const name of ['v1', 'v2'] as const) {
      const l0 = Date.now();
      try {
        // /mcp/x/all: the sweep covers the whole catalogue, not just the default toolsets at bare /mcp.
        const c = await connectClient(name, `${worker.endpoint}/x/all`, SWEEP_KEY);
        const tools = await c.listTools();
        clients.push(c);
        list[name] = { ok: true, tools: tools.length, ms: Date.now() - l0 };
        if (!listed.length) listed = tools;
        if (name === 'v1') problems = listingProblems(tools);
      } catch (err) {
        list[name] = { ok: false, tools: 0, ms: Date.now() - l0, error: String((err as Error)?.message ?? err).slice(0, 500) };
      }
      log(`${name} listTools: ${list[name].ok ? `${list[name].tools} tools in ${list[name].ms} ms` : `FAILED: ${list[name].error}`}`);
    }
    // Each client profile's listing keeps the rules too: VS Code's draft-07 dialect, OpenAI's strict form, Gemini's
    // inlined schemas, and the hybrid list a profile with a tool limit gets (docs/slices-profiles-discovery.md).
    for (const id of PROFILE_IDS) {
      try {
        const c = await connectClient('v1', `${worker.endpoint}/x/all?client=${id}`, SWEEP_KEY);
        problems.push(...listingProblems(await c.listTools()).map((p) => `[${id}] ${p}`));
        await c.close().catch(() => undefined);
      } catch (err) {
        problems.push(`[${id}] the v1 client could not list the tools: ${String((err as Error)?.message ?? err).slice(0, 300)}`);
      }
    }
    if (problems.length) log(`listings break ${problems.length} client rule(s), first: ${problems[0]}`);

    // 5. Calls.
    const byName = new Map<string, CatalogueTool>();
    for (const t of catalogue.tools) byName.set(t.name, t);
    let chosen = listed;
    if (opts.tools?.length) chosen = chosen.filter((t) => opts.tools!.includes(t.name));
    if (opts.readOnly) chosen = chosen.filter((t) => t.annotations?.readOnlyHint);
    chosen = sampleTools(chosen, opts.sample);
    const overrideKeys = await overrideKeyMap(opts.overrides);
    const calls = opts.calls ?? 3;
    const reports: ToolReport[] = [];
    let done = 0;
    await pool(chosen, opts.concurrency ?? 3, async (tool) => {
      const rep: ToolReport = {
        tool: tool.name,
        overrideKey: overrideKeys.get(tool.name) ?? tool.name,
        hasOutputSchema: Boolean(tool.outputSchema),
        counts: zero(),
        invalidArgSets: 0,
        examples: [],
      };
      for (let variant = 0; variant < calls; variant++) {
        const valid = (a: unknown) => validate(tool.inputSchema as never, a).valid;
        const args = withProjection(generateArgs(tool.inputSchema, variant, valid), byName.get(tool.name), variant);
        if (!valid(args)) rep.invalidArgSets++;
        for (const c of clients) {
          const c0 = Date.now();
          let cls;
          try {
            cls = classifyResult(await c.callTool(tool.name, args), tool.outputSchema as JsonSchema | undefined);
          } catch (err) {
            cls = classifyError(err);
          }
          rep.counts[cls.class]++;
          if (cls.class !== 'ok' && cls.class !== 'upstream_error' && cls.class !== 'type_drift' && rep.examples.length < 4) rep.examples.push({ client: c.name, variant, ...cls, ms: Date.now() - c0, args });
          else if (cls.class === 'upstream_error' && rep.examples.length < 1) rep.examples.push({ client: c.name, variant, ...cls, ms: Date.now() - c0, args });
        }
      }
      reports.push(rep);
      done++;
      if (done % 10 === 0 || done === chosen.length) log(`called ${done}/${chosen.length} tools`);
    });
    const confirmations = clients.reduce((n, c) => n + c.confirmations, 0);
    for (const c of clients) await c.close().catch(() => undefined);
    reports.sort((a, b) => a.tool.localeCompare(b.tool));

    const totals = zero();
    for (const r of reports) for (const k of CLASSES) totals[k] += r.counts[k];
    const failingSchemaTools = reports.filter((r) => r.hasOutputSchema && r.counts.schema_mismatch > 0).map((r) => r.tool);
    const errorOn2xxTools = reports.filter((r) => r.counts.error_on_2xx > 0).map((r) => r.tool);
    const listFailed = Object.values(list).some((l) => !l.ok);
    return {
      spec: opts.spec ?? `(embedded) ${catalogue.source.spec}`,
      upstream: opts.upstream ? `${opts.upstream} + drift` : upstreamLabel,
      startedAt: new Date(t0).toISOString(),
      ms: Date.now() - t0,
      catalogue: {
        title: catalogue.source.title,
        tools: catalogue.tools.length,
        jsonTools: jsonTools.length,
        withOutputSchema,
        keptRatio: jsonTools.length ? withOutputSchema / jsonTools.length : 1,
      },
      list,
      listingProblems: problems,
      sampled: chosen.length,
      calls: Object.values(totals).reduce((a, b) => a + b, 0),
      confirmations,
      totals,
      drift: { ...proxy.stats },
      tools: reports,
      failingSchemaTools,
      errorOn2xxTools,
      failed: listFailed || problems.length > 0 || totals.protocol_error > 0 || totals.transport_failure > 0 || totals.error_on_2xx > 0,
    };
  } finally {
    for (const r of running.reverse()) await r.stop().catch(() => undefined);
    await proxy?.close().catch(() => undefined);
    if (tmp) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The projection argument is the worker's, not the API's: a generated string would name no field. Variant 0 leaves it
 * out (compaction, and the page size chosen to fit); odd variants ask for a typical projection, even ones for "*".
 */
function withProjection(args: Record<string, unknown>, tool: CatalogueTool | undefined, variant: number): Record<string, unknown> {
  const name = tool?.result?.fields;
  if (!name || variant === 0) return args;
  const fields = typicalProjection(tool);
  return { ...args, [name]: variant % 2 === 1 && fields.length ? fields.join(',') : '*' };
}

/** listed name -> key in the overrides file (renamed tools are keyed by their generated name). */
async function overrideKeyMap(path: string | undefined): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  if (!path) return m;
  try {
    const raw = JSON.parse(await readFile(path, 'utf8')) as { tools?: Record<string, { rename?: string }> };
    for (const [key, o] of Object.entries(raw.tools ?? {})) if (o?.rename) m.set(o.rename, key);
  } catch {
    /* no file yet */
  }
  return m;
}
