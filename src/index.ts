// Worker entry: serves the catalogue embedded at build time (wrangler alias `catalog-data`).
import catalogText from 'catalog-data';
import { createApp } from './app.ts';
import { loadCatalogue } from './catalogue/load.ts';

export default createApp(loadCatalogue(catalogText));
// Durable Object classes must be exported by the Worker entry.
export { KeyRateLimiter } from './auth/rate-limit.ts';
// Code mode's sandbox binding (ctx.exports.CodeModeApi): the entry must export it (src/codemode/host-api.ts).
export { CodeModeApi } from './codemode/host-api.ts';
