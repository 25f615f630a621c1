// Worker entry: serves the catalogue embedded at build time (wrangler alias `catalog-data`), with its code-mode
// declarations (alias `declarations-data`).
import catalogueText from 'catalog-data';
import declarations from 'declarations-data';
import { createApp } from './app.ts';
import { loadCatalogue } from './catalogue/loaded-catalogue.ts';
import { usageScheduled } from './usage/retention.ts';

const app = createApp(loadCatalogue(catalogueText), { declarations });
// scheduled: the usage retention cleanup on the cron trigger (wrangler.toml [triggers]).
export default { fetch: app.fetch, scheduled: usageScheduled };
// Durable Object classes must be exported by the Worker entry.
export { KeyRateLimiter } from './auth/rate-limit.ts';
export { SchemaMismatchCounter } from './catalogue/schema-mismatch-counter.ts';
// Code mode's sandbox binding (ctx.exports.CodeModeApi): the entry must export it (src/codemode/host-api.ts).
export { CodeModeApi } from './codemode/host-api.ts';
