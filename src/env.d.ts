declare module 'catalog-data' {
  const text: string;
  export default text;
}
declare module 'declarations-data' {
  const text: string;
  export default text;
}
declare module '*.txt' {
  const text: string;
  export default text;
}

// `import { env } from 'cloudflare:workers'` (tests) and Durable Objects see the Worker's one Env type.
type WorkerEnv = import('./config.ts').Env;
declare namespace Cloudflare {
  interface Env extends WorkerEnv {
    // Bound in wrangler.toml, so tests can rely on it.
    KEYS: KVNamespace;
    OAUTH_KV: KVNamespace;
    USAGE: D1Database;
    LOADER: WorkerLoader;
  }
}
