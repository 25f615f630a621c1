// The worker project runs its files one after another in one workerd per vitest worker (vitest.config.ts,
// `isolate: false`) instead of starting a workerd per file: that start and the module load were half of the project's
// CPU time. Each file still begins as if alone: its modules are imported afresh (per-isolate caches, counters and
// loggers start empty) and every Durable Object is deleted, which takes the KV, D1 and rate-limiter storage an
// earlier file wrote with it (the OAuth registration limit of one file must not refuse the next file's client).
import { reset } from 'cloudflare:test';
import { vi } from 'vitest';

vi.resetModules();
await reset();
