// Types of src/oauth-provider.js, a symlink to @cloudflare/workers-oauth-provider's single-file build (see
// src/oauth-library.ts for why the Worker imports it by that path).
export * from '@cloudflare/workers-oauth-provider';
export { default } from '@cloudflare/workers-oauth-provider';
