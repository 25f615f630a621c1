// Three modes on three GitHub tasks: the exact request sequence each mode needs, driven with the real v2 client
// against the bench worker and the bench upstream's small GitHub, with tokens counted on the wire bytes.
//   typed tools  bare /mcp (the default toolsets): tools/list, then the task's calls turn by turn
//   discovery    /mcp/discover: search_tools, describe_tool for each operation, then call_tool turn by turn
//   code mode    /mcp/code: search, then one execute running the task's program
// The three answers must agree, or the section fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadCatalogue } from '../../../src/catalogue/loaded-catalogue.ts';
import { repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import { AUTH } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtInt } from '../stats.ts';
import { costOf, MODES, TASKS, type Call, type Mode, type ModeCost, type Task, type Turn } from '../tasks.ts';
import { searchLatency } from './search-latency.ts';

interface Exchange {
  request: { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
  response: { result?: { tools?: unknown[]; content?: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean } };
}

type CountTokens = (text: string) => number;
const PATHS: Record<Mode, string> = { 'typed tools': '/mcp', discovery: '/mcp/discover', 'code mode': '/mcp/code' };

/** A v2 client (2026-07-28, JSON responses) whose every request and response body is kept. */
async function recordingClient(base: string, path: string) {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const seen: Exchange[] = [];
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    if (typeof init?.body !== 'string') return res;
    const text = await res.text();
    try {
      seen.push({ request: JSON.parse(init.body) as Exchange['request'], response: JSON.parse(text) as Exchange['response'] });
    } catch {
      /* not JSON (a notification's empty answer) */
    }
    return new Response(text, { status: res.status, headers: res.headers });
  };
  const client = new Client({ name: 'bench-modes', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { fetch: recording, requestInit: { headers: AUTH } }));
  const last = (method: string): Exchange => {
    const hit = [...seen].reverse().find((e) => e.request.method === method);
    if (!hit) throw new Error(`no ${method} exchange recorded`);
    return hit;
  };
  return { client, last };
}

async function runMode(base: string, task: Task, mode: Mode, tokens: CountTokens, wrapped: (tool: string) => boolean): Promise<{ cost: ModeCost; answer: unknown }> {
  const { client, last } = await recordingClient(base, PATHS[mode]);
  try {
    await client.listTools();
    const definitions = tokens(JSON.stringify(last('tools/list').response.result?.tools ?? []));
    const turns: Turn[] = [];
    /** Sends one tools/call; the value a model (or the next turn) reads from it. */
    const call = async (name: string, args: Record<string, unknown>, turn: Turn): Promise<unknown> => {
      await client.callTool({ name, arguments: args });
      const result = last('tools/call').response.result;
      const texts = (result?.content ?? []).map((b) => b.text ?? '');
      if (!result || result.isError) throw new Error(`${mode}: ${name} failed: ${texts.join(' ').slice(0, 300)}`);
      turn.calls.push({ written: tokens(JSON.stringify({ name, arguments: args })), result: texts.reduce((n, t) => n + tokens(t), 0) });
      const inner = name === 'call_tool' ? String(args.name) : name;
      const structured = result.structuredContent as Record<string, unknown> | undefined;
      if (structured) return wrapped(inner) ? structured.result : structured;
      try {
        return JSON.parse(texts[0] ?? 'null');
      } catch {
        return texts.join('\n'); // search's declarations
      }
    };
    const turn = async (calls: Call[], wrap?: (c: Call) => Call): Promise<unknown[]> => {
      const t: Turn = { calls: [] };
      turns.push(t);
      const out: unknown[] = [];
      for (const c of calls) {
        const sent = wrap ? wrap(c) : c;
        out.push(await call(sent.name, sent.args, t));
      }
      return out;
    };

    if (mode === 'code mode') {
      const [found] = await turn([{ name: 'search', args: { query: task.query } }]);
      for (const tool of task.tools) if (!String(found).includes(`function ${tool}(`)) throw new Error(`code mode: search "${task.query}" did not return ${tool}`);
      const [answer] = await turn([{ name: 'execute', args: { code: task.program } }]);
      return { cost: costOf(definitions, turns), answer };
    }
    if (mode === 'discovery') {
      const [found] = await turn([{ name: 'search_tools', args: { query: task.query } }]);
      const names = ((found as { results: Array<{ name: string }> }).results ?? []).map((r) => r.name);
      for (const tool of task.tools) if (!names.includes(tool)) throw new Error(`discovery: search_tools "${task.query}" did not return ${tool}`);
      await turn(task.tools.map((name) => ({ name: 'describe_tool', args: { name } })));
    }
    const wrap = mode === 'discovery' ? (c: Call): Call => ({ name: 'call_tool', args: { name: c.name, arguments: c.args } }) : undefined;
    const results: unknown[][] = [];
    for (const next of task.turns) results.push(await turn(next(results), wrap));
    return { cost: costOf(definitions, turns), answer: task.answer(results) };
  } finally {
    await client.close();
  }
}

export async function benchModes(ctx: BenchContext, worker: Server): Promise<void> {
  const { plan, results } = ctx;
  const { countTokens } = await import('gpt-tokenizer');
  const loaded = loadCatalogue(readFileSync(join(repoRoot, 'catalog/catalog.txt'), 'utf8'));
  const wrapped = (tool: string) => loaded.byName.get(tool)?.outputWrapped === true;
  const raw: Record<string, Record<Mode, ModeCost>> = {};
  results.raw.modes = raw;
  const reproduce = plan.reproduce('modes');
  for (const task of TASKS) {
    const costs = {} as Record<Mode, ModeCost>;
    let reference: unknown;
    for (const mode of MODES) {
      const { cost, answer } = await runMode(worker.url, task, mode, countTokens, wrapped);
      if (mode === 'typed tools') reference = answer;
      else if (!isDeepStrictEqual(answer, reference)) throw new Error(`${task.id}: ${mode} answered ${JSON.stringify(answer)}, typed tools ${JSON.stringify(reference)}`);
      costs[mode] = cost;
    }
    raw[task.id] = costs;
    for (const mode of MODES) {
      const c = costs[mode];
      results.row({
        section: 'modes',
        measure: `${task.title}: ${mode}`,
        result:
          `${c.roundTrips} round trip${c.roundTrips === 1 ? '' : 's'} (${c.toolCalls} calls) · ${fmtInt(c.total)} tokens = ${fmtInt(c.definitions)} definitions + ${fmtInt(c.results)} results + ${fmtInt(c.written)} written · ` +
          `input over the task ${fmtInt(c.input)}`,
        reproduce,
      });
    }
  }
  // The one ranker's cost in workerd, GitHub's whole catalogue (target: p50 at most 5 ms).
  const latency = await searchLatency(worker.url);
  results.raw.searchLatency = latency;
  results.row({ section: 'modes', measure: 'search_tools latency in workerd (GitHub, 1,223 tools)', result: latency.text, reproduce });
  results.note(
    'modes',
    'Each task runs three ways against the same bench worker and upstream, with the v2 client (`@modelcontextprotocol/client`, 2026-07-28, JSON responses) through a recording fetch; the three answers are checked equal. ' +
      'Tasks: ' + TASKS.map((t) => `**${t.title}** (${t.tools.join(', ')}; search query "${t.query}")`).join('; ') + '. ' +
      'The bench upstream answers them from GitHub\'s documented examples (scripts/lib/github-fake.ts): 6 issues (3 open bugs), 4 open pull requests, 8 repositories. ' +
      '**Typed tools**: bare `/mcp` (the default toolsets, which hold all six operations); tools/list, then the task\'s calls. **Discovery**: `/mcp/discover`; search_tools once, describe_tool for each operation, then call_tool. **Code mode**: `/mcp/code`; search once, then one execute with the task\'s program (scripts/bench/tasks.ts). ' +
      'A round trip is one model turn that calls tools; calls that need only earlier results share a turn (parallel tool calls). ' +
      'Tokens: o200k_base (gpt-tokenizer `countTokens`) on the wire bytes: definitions = the tools/list `tools` array; results = every text block of every tools/call result (what a client hands the model; structuredContent repeats the first block); written = each call\'s name and arguments as JSON (the program, for execute). ' +
      '"Input over the task" adds what the model reads at each turn and at the final answer: the definitions and everything before that turn (no prompt caching, no system prompt). Deterministic: the same on every run.',
  );
}
