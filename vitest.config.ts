import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

const catalogData = new URL('./catalog/catalog.txt', import.meta.url).pathname;

export default defineConfig({
  test: {
    projects: [
      {
        // Tests that run inside workerd (the real Workers runtime).
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' } })],
        resolve: { alias: { 'catalog-data': catalogData } },
        test: {
          name: 'worker',
          include: ['test/worker/**/*.test.ts'],
          globalSetup: ['test/support/global-upstream.ts'],
          testTimeout: 30_000,
        },
      },
      {
        // Build-time tools and end-to-end tests that drive `wrangler dev` with real MCP clients.
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
