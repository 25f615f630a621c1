// Worker entry: serves the catalogue embedded at build time (alias `catalog-data`, a Text module next to the code),
// with its code-mode declarations (alias `declarations-data`). The global scope only opens the catalogue (its
// one-line header); the app, and with it the MCP SDK (whose schemas take tens of milliseconds to set up), loads on
// the first request, so startup CPU does not grow with either.
import catalogueText from 'catalog-data';
import declarations from 'declarations-data';
import type { Hono } from 'hono';
import { loadCatalogue } from './catalogue/loaded-catalogue.ts';
import type { PipelineEnv } from './pipeline/vars.ts';
import { usageScheduled } from './usage/retention.ts';

const loaded = loadCatalogue(catalogueText);
let app: Promise<Hono<PipelineEnv>> | undefined;

function appOnce(): Promise<Hono<PipelineEnv>> {
  app ??= import('./app.ts').then(
    (m) => m.createApp(loaded, { declarations }),
    (error: unknown) => {
      app = undefined;
      throw error;
    },
  );
  return app;
}

// scheduled (wrangler.toml [triggers]): the usage retention cleanup and the spec drift check, side by side; the
// check never throws (src/spec-drift/check.ts), so a cleanup failure alone marks the cron run failed.
export default {
  async fetch(request: Request, env: PipelineEnv['Bindings'], ctx: ExecutionContext): Promise<Response> {
    const served = await appOnce();
    return await served.fetch(request, env, ctx);
  },
  async scheduled(controller: ScheduledController, env: PipelineEnv['Bindings']): Promise<void> {
    const [usage] = await Promise.allSettled([
      usageScheduled(controller, env),
      import('./spec-drift/check.ts').then((m) => m.specDriftScheduled(controller, env, loaded)),
    ]);
    if (usage.status === 'rejected') throw usage.reason;
  },
};
// Durable Object classes must be exported by the Worker entry.
export { KeyRateLimiter } from './auth/rate-limit.ts';
export { SchemaMismatchCounter } from './schema-health/mismatch-counter.ts';
export { ConfirmationLedger } from './tools/confirm-ledger-object.ts';
// Code mode's sandbox binding (ctx.exports.CodeModeApi): the entry must export it (src/codemode/host-api.ts).
export { CodeModeApi } from './codemode/host-api.ts';
