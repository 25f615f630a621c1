declare module 'catalog-data' {
  const text: string;
  export default text;
}
declare module '*.txt' {
  const text: string;
  export default text;
}

// Bindings from wrangler.toml, as seen by `import { env } from 'cloudflare:workers'` (tests) and DOs.
declare namespace Cloudflare {
  interface Env {
    KEYS: KVNamespace;
    KEY_RATE_LIMITER: DurableObjectNamespace<import('./auth/rate-limit.ts').KeyRateLimiter>;
    USAGE: D1Database;
  }
}
