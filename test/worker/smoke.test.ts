import { exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';
it('serves', async () => {
  const res = await exports.default.fetch('http://127.0.0.1/');
  expect(await res.text()).toMatch(/tools: \d+/);
});
