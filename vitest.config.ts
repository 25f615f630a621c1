import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.ts';

const catalogData = new URL('./catalog/catalog.txt', import.meta.url).pathname;
const declarationsData = new URL('./catalog/declarations.txt', import.meta.url).pathname;
const migrationsDir = new URL('./migrations', import.meta.url).pathname;

export default defineConfig({
  test: {
    // Files run side by side: most of an end-to-end file's time is spent waiting on the servers it starts, so three
    // at a time keep two cores busy (docs/ci.md, "What runs where"). VITEST_MAX_WORKERS overrides it.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // Tests that run inside workerd (the real Workers runtime).
        // The D1 migrations travel as a binding; usage tests apply them with applyD1Migrations (test/worker/usage-db.ts).
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { USAGE_MIGRATIONS: await readD1Migrations(migrationsDir) } },
          })),
        ],
        resolve: { alias: { 'catalog-data': catalogData, 'declarations-data': declarationsData } },
        test: {
          name: 'worker',
          include: ['test/worker/**/*.test.ts'],
          globalSetup: ['test/support/global-upstream.ts'],
          // One workerd per vitest worker runs file after file; each file starts with fresh modules and empty storage.
          isolate: false,
          setupFiles: ['test/worker/fixtures/file-isolation.ts'],
          // A hang guard, not a speed target: listing the whole GitHub catalogue to a v1 client that Ajv-compiles every
          // outputSchema takes several seconds alone, and minutes on a loaded machine.
          testTimeout: 120_000,
        },
      },
      {
        // Build-time tools and end-to-end tests that drive `wrangler dev` with real MCP clients.
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/page*.test.ts', 'test/e2e/memory-soak.test.ts'],
          setupFiles: ['test/support/fresh-connections.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The memory soak: thousands of requests and two heap snapshots against one wrangler dev. A soak, not a unit
        // of the suite, so `npm run test:soak` runs it as a step of its own in CI, after `npm test`.
        test: {
          name: 'soak',
          environment: 'node',
          include: ['test/e2e/memory-soak.test.ts'],
          setupFiles: ['test/support/fresh-connections.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The catalogue page in headless Chromium. Debian's chromium is not on a fresh machine, so these run
        // as `npm run test:browser` (CI installs chromium first) and `npm test` stays two commands from a clone.
        test: {
          name: 'browser',
          environment: 'node',
          include: ['test/e2e/page*.test.ts'],
          setupFiles: ['test/support/fresh-connections.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
