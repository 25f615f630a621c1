// The trade-off behind the listing's output bound (OUTPUT_BOUND in src/profiles/listing-compaction.ts): the bare /mcp
// list built by the Worker's own modules under several bounds, each served as ready bytes by a loopback HTTP server in
// the bench process, and listed by the v1 and the v2 client side by side, next to the share of fields still typed.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadCatalogue, type LoadedCatalogue } from '../../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../../src/catalogue/slices.ts';
import { DEFAULT_COMPACT, OUTPUT_BOUND } from '../../../src/profiles/listing-compaction.ts';
import type { OutputBound } from '../../../src/profiles/output-bound.ts';
import { PROFILES } from '../../../src/profiles/profiles.ts';
import { buildView, type WireTool } from '../../../src/profiles/view.ts';
import { typedShare } from '../../catalog/typed-fields.ts';
import { repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import { fmtBytes, fmtMs, fmtRatio, fmtSpread, median, ratio, spread } from '../stats.ts';
import { timedClients } from '../timed-clients.ts';

const WHOLE: OutputBound = { levels: 0, budget: Infinity };
/** From no field typed to the whole schema; the shipped bound among them. */
const BOUNDS: OutputBound[] = [{ levels: 0, budget: 0 }, OUTPUT_BOUND, { levels: 1, budget: 16 }, { levels: 1, budget: 32 }, { levels: 1, budget: 64 }, { levels: 1, budget: 128 }, { levels: 2, budget: 0 }, WHOLE];

const label = (b: OutputBound) => (b.budget === Infinity ? 'whole schemas' : `top ${b.levels} level${b.levels === 1 ? '' : 's'} whole, ${b.budget} typed nodes below`);

/** A stateless 2025-era MCP endpoint that answers tools/list with `list` (ready bytes, as the Worker does). */
async function listServer(): Promise<{ url: (path: string) => URL; serve: (path: string, tools: WireTool[]) => void; close: () => Promise<void> }> {
  const lists = new Map<string, string>();
  const answer = (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (req.method !== 'POST') return res.writeHead(405).end();
    const msg = JSON.parse(body) as { id?: string | number; method: string; params?: { protocolVersion?: string } };
    if (msg.id === undefined) return res.writeHead(202).end();
    const reply = (result: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},${result}}`);
    const list = lists.get(req.url ?? '');
    if (msg.method === 'initialize') {
      const version = /^2025-/.test(msg.params?.protocolVersion ?? '') ? msg.params!.protocolVersion : '2025-11-25';
      return reply(`"result":${JSON.stringify({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'bench-bound', version: '1.0.0' } })}`);
    }
    if (msg.method === 'tools/list' && list) return reply(`"result":${list}`);
    return reply('"error":{"code":-32601,"message":"Method not found"}');
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  // The v1 client's compile blocks this process's event loop for seconds; a keep-alive socket must outlive that.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => new URL(`http://127.0.0.1:${port}${path}`),
    serve: (path, tools) => lists.set(path, JSON.stringify({ tools })),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function listWith(loaded: LoadedCatalogue, bound: OutputBound): WireTool[] {
  const slice = sliceOf(loaded, loaded.catalogue.defaultToolsets ? { toolsets: loaded.catalogue.defaultToolsets } : {});
  return buildView(loaded, slice, PROFILES.default, { ...DEFAULT_COMPACT, output: bound }).tools;
}

export async function benchClientBound(ctx: BenchContext): Promise<void> {
  const { plan, results } = ctx;
  const { v1, v2 } = await timedClients();
  const loaded = loadCatalogue(await readFile(join(repoRoot, 'catalog', 'catalog.txt'), 'utf8'));
  const whole = listWith(loaded, WHOLE);
  const wrapped = new Map(whole.map((t) => [t.name, loaded.tool(loaded.indexOf(t.name)!).outputWrapped === true]));
  const server = await listServer();
  const raw: Record<string, unknown>[] = [];
  (results.raw.client as Record<string, unknown>).bound = raw;
  const reps = plan.n.clientReps.bare;
  try {
    for (const bound of BOUNDS) {
      const tools = listWith(loaded, bound);
      const path = `/${bound.levels}-${bound.budget}`;
      server.serve(path, tools);
      const share = typedShare(tools.map((t, i) => ({ full: whole[i]!.outputSchema, listed: t.outputSchema, wrapped: wrapped.get(t.name)! })));
      const one: Awaited<ReturnType<typeof v1>>[] = [];
      const two: Awaited<ReturnType<typeof v2>>[] = [];
      for (let i = 0; i < reps; i++) {
        // Interleaved, the order alternating per repeat.
        if (i % 2) two.push(await v2(server.url(path)));
        one.push(await v1(server.url(path)));
        if (!(i % 2)) two.push(await v2(server.url(path)));
      }
      const s1 = spread(one.map((x) => x.ms));
      const s2 = spread(two.map((x) => x.ms));
      const cpu1 = median(one.map((x) => x.cpuMs));
      const cpu2 = median(two.map((x) => x.cpuMs));
      const r = ratio(s1.median, s2.median);
      const bytes = Buffer.byteLength(JSON.stringify({ tools }));
      const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)}%`;
      raw.push({ bound, share, bytes, v1ListToolsMs: s1, v2ListToolsMs: s2, ratio: r, v1CpuMs: cpu1, v2CpuMs: cpu2 });
      const shipped = bound === OUTPUT_BOUND ? ' (the listing’s bound)' : '';
      const result = `fields typed ${pct(share.typed, share.fields)} (top level ${pct(share.topTyped, share.topFields)}) · list ${fmtBytes(bytes)} · v1 ${fmtSpread(s1)} · v2 ${fmtSpread(s2)} · v1/v2 ${fmtRatio(r)} · CPU (medians) v1 ${fmtMs(cpu1)}, v2 ${fmtMs(cpu2)}`;
      results.row({ section: 'client', measure: `output bound: ${label(bound)}${shipped}, bare /mcp list served from loopback`, result, reproduce: plan.reproduce('client') });
      ctx.log(`client bound ${path}: ${result}`);
    }
  } finally {
    await server.close();
  }
  results.note('client', `Output bound trade-off: the bare /mcp list (default profile) built by \`buildView\` with each bound, served as ready bytes by a stateless 2025-era endpoint on loopback in the bench process (the same for both clients, so the ratio isolates what each client does with the list), ${reps} interleaved repeats of each client per bound. CPU: the bench process's user and system time during each listTools (the client's work, and the loopback server's sending of ready bytes), less swayed by the machine's other load than wall time. Fields typed: of the output fields the whole listed schemas type (paths in the response body; a wrapped tool's \`result\` and array items add no level), the share the bounded schemas still type; top level: the body's own fields (a list's item fields).`);
}
