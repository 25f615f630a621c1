// Result shaping on two more corpus specs, Stripe (list envelopes, limit + starting_after, no examples) and Netlify
// (Swagger 2.0, root arrays with page/per_page), built in the global setup and answered by the spec-driven
// loopback upstream; both strict clients in both protocol eras.
import { describe, expect, inject, it } from 'vitest';
import { CLIENTS, harness, jsonText, nextArgs, type CallResult } from './fixtures/results.ts';

const catalogues = inject('resultCatalogues');
const stripe = harness(catalogues.stripe!, 'stripe');
const stripeTight = harness(catalogues.stripe!, 'stripe', { MAX_RESULT_TOKENS: '4000' });
const netlify = harness(catalogues.netlify!, 'netlify');
const netlifyTight = harness(catalogues.netlify!, 'netlify', { MAX_RESULT_TOKENS: '1000' });
const STRIPE_TOOLS = ['charges_list', 'customers_list', 'customers_get'];
const NETLIFY_TOOLS = ['list_sites', 'get_site', 'list_site_deploys'];

const data = (r: CallResult) => {
  expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
  return jsonText(r) as Record<string, unknown>;
};
const noteOf = (d: Record<string, unknown>) => String(d.truncated ?? d.note ?? '');

function noNulls(v: unknown): void {
  const s = JSON.stringify(v);
  expect(s).not.toMatch(/:null[,}]/);
  expect(s).not.toMatch(/:\[\][,}]|:\{\}[,}]|:""[,}]/);
}

describe.each(CLIENTS)('Stripe results, %s', (kind) => {
  it('compacts the list envelope and its items, keeping the envelope fields', async () => {
    const c = await stripe.connect(kind, STRIPE_TOOLS);
    const d = data(await c.call('charges_list', {}));
    expect(Array.isArray(d.data)).toBe(true);
    expect((d.data as unknown[]).length).toBeGreaterThan(0);
    expect(d).toHaveProperty('has_more');
    noNulls(d);
    await c.close();
  });

  it('projects each charge, and checks paths through anyOf schemas', async () => {
    const c = await stripe.connect(kind, STRIPE_TOOLS);
    const d = data(await c.call('charges_list', { _fields: 'id,amount,currency' }));
    for (const it of d.data as Array<Record<string, unknown>>) expect(Object.keys(it).sort()).toEqual(['amount', 'currency', 'id']);
    expect(d).toHaveProperty('has_more');
    const one = data(await c.call('customers_get', { customer: 'cus_1', _fields: ['id', 'email'] }));
    expect(Object.keys(one).every((k) => k === 'id' || k === 'email')).toBe(true);
    expect(one.id).toBeTruthy();
    const bad = await c.call('charges_list', { _fields: 'id,amount.value' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/does not have: amount\.value\. Valid top-level fields of each item: .*\bamount\b/);
    await c.close();
  });

  it('over the budget: whole charges and starting_after for the rest', async () => {
    const c = await stripeTight.connect(kind, STRIPE_TOOLS);
    const d = data(await c.call('charges_list', { limit: 20 }));
    const shown = d.data as Array<Record<string, unknown>>;
    expect(shown.length, `charge JSON: ${JSON.stringify(shown[0] ?? d).length} chars`).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(20);
    expect(noteOf(d)).toMatch(new RegExp(`^Showing ${shown.length} of 20 items`));
    const next = nextArgs(noteOf(d));
    expect(next).toEqual({ starting_after: shown.at(-1)!.id, limit: shown.length });
    const d2 = data(await c.call('charges_list', { limit: 20, ...next }));
    const ids = (d2.data as Array<Record<string, unknown>>).map((x) => String(x.id));
    expect(ids[0]).toBe(String(shown.at(-1)!.id).replace(/_(\d+)$/, (_m, n: string) => `_${Number(n) + 1}`));
    await c.close();
  });
});

describe.each(CLIENTS)('Netlify results, %s', (kind) => {
  it('projects a root array and pages it by page/per_page', async () => {
    const c = await netlify.connect(kind, NETLIFY_TOOLS);
    const d = data(await c.call('list_sites', { _fields: 'id,name,url' }));
    const sites = d.result as Array<Record<string, unknown>>;
    expect(sites).toHaveLength(30);
    for (const s of sites) expect(Object.keys(s).every((k) => ['id', 'name', 'url'].includes(k))).toBe(true);
    const compact = data(await c.call('get_site', { site_id: 's1' }));
    noNulls(compact);
    await c.close();

    const t = await netlifyTight.connect(kind, NETLIFY_TOOLS);
    const cut = data(await t.call('list_sites', { per_page: 10 }));
    const shown = cut.result as Array<Record<string, unknown>>;
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(10);
    const next = nextArgs(noteOf(cut));
    expect(next).toEqual({ per_page: shown.length, page: 2 });
    const after = (data(await t.call('list_sites', { per_page: 10, ...next })).result as Array<Record<string, unknown>>)[0]!;
    expect(String(after.id)).toMatch(new RegExp(`_${shown.length + 1}$`));
    await t.close();
  });
});
