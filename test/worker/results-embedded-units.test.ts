// Embedded resources one step at a time (src/results/embedded-resources.ts and its use in shape.ts): the run-time check, what
// a shortened resource keeps, keep patterns, when shortening steps aside, and that the result stays schema-valid.
import { describe, expect, it } from 'vitest';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { embeddedTree, isApiResource, savedAtLeast, shortenedNothing, summariseEmbedded } from '../../src/results/embedded-resources.ts';
import { compactRules } from '../../src/results/options.ts';
import { resultBudget } from '../../src/results/budget.ts';
import { planResult, shapeResult } from '../../src/results/shape.ts';

const API = 'https://api.example.com';
const rules = compactRules({ origins: [`${API}/v1`] }, ['http://127.0.0.1:9999/mock']);
const options = { compact: true, rules };
const user = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  login: `user${id}`,
  name: `User ${id}`,
  url: `${API}/users/${id}`,
  html_url: `https://example.com/user${id}`,
  bio: 'Writes a great deal about many things, at length, every single day of the week.',
  company: 'Example Corporation International',
  location: 'Somewhere far away',
  followers: 1234,
  ...extra,
});
const userSchema = { type: 'object', properties: Object.fromEntries(Object.keys(user(1)).map((k) => [k, { type: k === 'id' || k === 'followers' ? 'integer' : 'string' }])) };

function tool(embedded: string[]): CatalogueTool {
  return {
    name: 'issue_get',
    title: 't',
    description: 't',
    inputSchema: { type: 'object', properties: { _fields: { type: 'string' } } },
    outputSchema: { type: 'object', additionalProperties: false, properties: { id: { type: 'integer' }, title: { type: 'string' }, author: userSchema, watchers: { type: 'array', items: userSchema }, note: { type: 'string' } } },
    annotations: { title: 't', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['t'],
    http: { method: 'GET', path: '/issue', params: [], accept: ['application/json'] },
    result: { fields: '_fields', embedded },
  };
}

const shape = (t: CatalogueTool, value: unknown, args: Record<string, unknown> = {}, opts = options) => {
  const planned = planResult(t, args, opts, resultBudget(25_000));
  if ('error' in planned) throw new Error(planned.error);
  return shapeResult(value, planned.plan, resultBudget(25_000));
};

describe('the run-time check', () => {
  it('needs an identity value and a self link into the API (any API origin, or a links object)', () => {
    expect(isApiResource(user(1), rules)).toBe(true);
    expect(isApiResource({ ...user(1), url: 'http://127.0.0.1:9999/mock/users/1' }, rules)).toBe(true); // the upstream counts as the API
    expect(isApiResource({ ...user(1), url: 'https://cdn.example.com/u/1' }, rules)).toBe(false);
    expect(isApiResource({ ...user(1), id: null, login: undefined }, rules)).toBe(false);
    expect(isApiResource({ key: 'FAC', _links: { self: { href: '/queues/FAC' } } }, rules)).toBe(true);
  });
});

describe('shortening', () => {
  it('keeps identity and human fields, walks arrays, and respects keep patterns', () => {
    const done = shortenedNothing();
    const item = { id: 1, author: user(1), watchers: [user(2), { ...user(3), url: 'https://elsewhere.example/3' }] };
    const out = summariseEmbedded(item, embeddedTree(['author', 'watchers']), rules, done) as Record<string, any>;
    expect(out.author).toEqual({ id: 1, login: 'user1', name: 'User 1', html_url: 'https://example.com/user1' });
    expect(out.watchers[0]).toEqual({ id: 2, login: 'user2', name: 'User 2', html_url: 'https://example.com/user2' });
    expect(out.watchers[1]).toEqual({ ...user(3), url: 'https://elsewhere.example/3' }); // not on the API: whole
    expect([...done.paths]).toEqual(['author', 'watchers']);
    expect(savedAtLeast(done, rules, 201)).toBe(true);
    expect(done.savedChars).toBeGreaterThan(200);
    expect(item.author.bio).toBeTruthy(); // the input is not changed
    const kept = summariseEmbedded(item, embeddedTree(['author']), compactRules({ origins: [API], keep: ['author.company'] }), shortenedNothing()) as Record<string, any>;
    expect(kept.author.company).toBe('Example Corporation International');
  });

  it('in shapeResult: a note when it happens; a projection, "*" or the deployment switch turn it off; the outputSchema still holds', () => {
    const t = tool(['author', 'watchers']);
    const value = { id: 7, title: 'Broken', author: user(1), watchers: [user(2)] };
    const s = shape(t, value);
    expect((s.value as any).author).toEqual({ id: 1, login: 'user1', name: 'User 1', html_url: 'https://example.com/user1' });
    expect(s.note).toBe('Shortened to identifying fields: author, watchers. More: _fields="id,title,author", or "*" for all.');
    expect(validate(t.outputSchema!, s.value).valid).toBe(true);
    expect((shape(t, value, { _fields: 'title,author' }).value as any).author.bio).toBeTruthy();
    expect(shape(t, value, { _fields: 'title,author' }).note).toBeUndefined();
    expect((shape(t, value, { _fields: '*' }).value as any).author.url).toBe(`${API}/users/1`);
    expect((shape(t, value, {}, { compact: false, rules }).value as any).author.company).toBeTruthy();
  });

  it('steps aside when it would save less than twice its own note', () => {
    const t = tool(['author']);
    const small = { id: 7, title: 'Small', author: { id: 1, login: 'u', url: `${API}/users/1`, type: 'User' } };
    const s = shape(t, small);
    expect((s.value as any).author).toEqual({ id: 1, login: 'u', type: 'User' }); // compacted (url), not shortened
    expect(s.note).toBeUndefined();
  });
});
