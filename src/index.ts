// Worker entry: serves the catalogue embedded at build time (wrangler alias `catalog-data`).
import catalogueText from 'catalog-data';
import { createApp } from './app.ts';
import { loadCatalogue } from './catalogue/loaded-catalogue.ts';

export default createApp(loadCatalogue(catalogueText));
// Durable Object classes must be exported by the Worker entry.
export { KeyRateLimiter } from './auth/rate-limit.ts';
