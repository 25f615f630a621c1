// Operator routes, all behind one gate on /admin/* (guard.ts: the Host/Origin guard, then the ADMIN_TOKEN bearer).
// GET /admin/schema-health: per-tool counts of upstream responses that failed the outputSchema their client was shown,
// and of sampled full-schema differences (both kept by the app's SchemaHealth, src/schema-health/health.ts), and the
// runtime drop list as this isolate sees it, automatic drops (reason "auto") included. GET /admin/usage: usage-route.ts.
// The mismatch counts live in isolate memory: they cover the isolate that answered, since it started. For
// fleet-wide numbers, use the `tool_call` log lines with outcome schema_mismatch.
import type { Hono, MiddlewareHandler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Env } from '../config.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';
import { AUTO_REASON, DROPS_KEY } from '../schema-health/drop-list.ts';
import { applyDrops, dropsTtlMs } from '../schema-health/drops.ts';
import type { SchemaHealth } from '../schema-health/health.ts';
import { autoDropSettings } from '../schema-health/mismatch-window.ts';
import { specDriftHealth } from '../spec-drift/drift-status.ts';
import { requireAdmin } from './guard.ts';
import { usageRoute } from './usage-route.ts';

// Set on the first admin request (Date is frozen at 0 in a Worker's global scope).
let startedAt: string | undefined;

/** Mounts the gate on /admin/* (after `configure`, which the guard reads) and the routes this module serves. */
export function registerAdmin(app: Hono<PipelineEnv>, loaded: LoadedCatalogue, configure: MiddlewareHandler<PipelineEnv>, health: SchemaHealth): void {
  app.use('/admin/*', configure, requireAdmin);
  const { mismatches: schemaMismatchCounts, samples } = health;
  app.get('/admin/usage', usageRoute);
  app.get('/admin/schema-health', async (c) => {
    startedAt ??= new Date().toISOString();
    const env: Env = c.env ?? {};
    const state = await health.current(env);
    const view = applyDrops(loaded, state.list, state);
    const all = c.req.query('all') === '1' || c.req.query('all') === 'true';
    const indices = Array.from({ length: loaded.count }, (_, i) => i);
    await loaded.load(indices);
    const tools = indices
      .map((i) => {
        const name = loaded.name(i);
        const runtime = state.list.tools[name] ?? Object.entries(state.list.tools).find(([n]) => loaded.indexOf(n) === i)?.[1];
        // Only a tool without an outputSchema can have a build-time drop reason; the others need no record.
        const built = loaded.hasOutputSchema(i) ? undefined : loaded.peek(i).outputSchemaDropped;
        const outputSchema = view.hasOutputSchema(i) ? 'advertised' : runtime && loaded.hasOutputSchema(i) ? 'dropped_runtime' : built ? 'dropped_build' : 'none';
        return {
          name,
          mismatches: schemaMismatchCounts.get(name) ?? 0,
          drift: samples.drift.get(name) ?? 0,
          outputSchema,
          ...(runtime
            ? { dropReason: runtime.reason, ...(runtime.at ? { droppedAt: runtime.at } : {}), ...(runtime.path ? { mismatchPath: runtime.path } : {}), ...(runtime.detail ? { dropDetail: runtime.detail } : {}) }
            : built
              ? { dropReason: built }
              : {}),
        };
      })
      .filter((t) => all || t.mismatches > 0 || t.drift > 0 || t.outputSchema === 'dropped_runtime')
      .sort((a, b) => b.mismatches - a.mismatches || a.name.localeCompare(b.name));
    const unknown = Object.keys(state.list.tools).filter((n) => loaded.indexOf(n) === undefined);
    const auto = autoDropSettings(env);
    let total = 0;
    for (const n of schemaMismatchCounts.values()) total += n;
    return c.json(
      {
        isolate: { firstAdminRequestAt: startedAt },
        catalogue: { title: loaded.catalogue.source.title, hash: await loaded.hash(), tools: loaded.count },
        specDrift: await specDriftHealth(loaded, env, { detail: true }),
        mismatches: { total, tools: schemaMismatchCounts.size },
        drops: {
          key: DROPS_KEY,
          binding: env.CONFIG ? 'CONFIG' : env.KEYS ? 'KEYS' : null,
          ttlSeconds: dropsTtlMs(env) / 1000,
          fetchedAt: Number.isFinite(state.fetchedAt) ? new Date(state.fetchedAt).toISOString() : null,
          count: Object.keys(state.list.tools).length,
          ...(unknown.length ? { unknownTools: unknown } : {}),
          ...(state.error ? { error: state.error } : {}),
        },
        autoDrop: {
          ...(auto ? { enabled: true, threshold: auto.threshold, windowSeconds: auto.windowMs / 1000 } : { enabled: false }),
          counter: env.SCHEMA_MISMATCH_COUNTER ? 'durable_object' : 'isolate',
          tools: Object.entries(state.list.tools)
            .filter(([, e]) => e.reason === AUTO_REASON)
            .map(([name, e]) => ({ name, ...(e.at ? { droppedAt: e.at } : {}), ...(e.path ? { mismatchPath: e.path } : {}), ...(e.detail ? { detail: e.detail } : {}) })),
        },
        tools,
      },
      200,
      { 'cache-control': 'no-store' },
    );
  });
}
