// What a request asks for, read from its form (docs/slices-profiles-discovery.md, "Search"): an operation with an action
// of its own on an existing thing (`/issues/{id}/add_spent_time`) does not create that thing, so "open an issue" asks
// for the tool whose title creates issues; "… when X happens" after a request asks to be told, like "whenever".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { rankTools } from '../../src/discovery/search.ts';
import { clauseIntent, shapeFit } from '../../src/discovery/search-fit.ts';
import { rankingData } from '../../src/discovery/search-cache.ts';
import { tmp } from './fixtures/mini-spec.ts';

const op = (summary: string) => ({ summary, responses: { '204': { description: 'done' } } });
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Tracker', version: '1' },
  servers: [{ url: 'https://tracker.example' }],
  paths: {
    '/projects/{id}/issues': { parameters: [id], get: op('List project issues'), post: op('Create a new project issue') },
    '/projects/{id}/issues/{issue_id}/add_spent_time': { parameters: [id, { ...id, name: 'issue_id' }], post: op('Add spent time for a project issue') },
    '/campaigns': { get: op('List campaigns'), post: op('Add campaign') },
    '/campaigns/{id}/actions/create-resend': { parameters: [id], post: op('Resend campaign') },
    '/surveys/{id}/actions/create-email': { parameters: [id], post: op('Create a survey campaign') },
    '/usage': { get: op('Get usage records for the account') },
    '/usage/triggers': { get: op('List usage triggers'), post: op('Create a usage trigger') },
    '/sessions': { get: op('List sessions') },
    '/teams': { post: op('Add a team') },
    '/users': { post: op('Add a user') },
    '/users/{id}': { parameters: [id], delete: op('Remove a user') },
    '/teams/{id}/members': { parameters: [id], post: op('Add a team member') },
    '/lists': { post: op('Create a list') },
    '/conferences': { get: op('List conferences belonging to the account') },
    '/conferences/{id}': { parameters: [id], get: op('Fetch a conference by its conference ID') },
    '/reports/{id}': { parameters: [id], get: op('Get a report') },
    '/lists/{id}/members': { parameters: [id], post: op('Add a list member') },
    '/teams/{id}/members/{user}': { parameters: [id, { ...id, name: 'user' }], delete: op('Remove a team member') },
    '/sessions/active': { get: op('List active sessions') },
    '/usage/triggers/{id}': { parameters: [id], post: op('Update an instance of a usage trigger') },
  },
};

let tracker: LoadedCatalogue;
const ranked = (query: string) => rankTools(tracker, sliceOf(tracker, {}), query, { limit: 5 }).map((h) => `${tracker.tool(h.index).http.method} ${tracker.tool(h.index).http.path}`);

beforeAll(async () => {
  const file = join(tmp(), 'tracker.json');
  writeFileSync(file, JSON.stringify(SPEC));
  tracker = loadCatalogue((await buildCatalogue(file, { sweep: false })).text);
}, 60_000);

describe('creating something', () => {
  it('prefers the tool that creates it to an action of its own on an existing one', () => {
    expect(ranked('open an issue about the broken login page')[0]).toBe('POST /projects/{id}/issues');
    const campaign = ranked('create a campaign');
    expect(campaign.indexOf('POST /campaigns')).toBeLessThan(campaign.indexOf('POST /campaigns/{id}/actions/create-resend'));
    expect(campaign[0]).not.toBe('POST /campaigns/{id}/actions/create-resend');
  });

  it('an action whose title creates the thing still counts as creating it', () => {
    expect(ranked('create a survey campaign')[0]).toBe('POST /surveys/{id}/actions/create-email');
    expect(ranked('add spent time to an issue')[0]).toBe('POST /projects/{id}/issues/{issue_id}/add_spent_time');
  });
});

describe('being told when something happens', () => {
  it('"… when X happens" after a request asks to create a subscription, as "whenever" does', () => {
    expect(clauseIntent('alert me when usage goes over a limit', 'alert', false).cls).toBe('create');
    expect(clauseIntent('tell our server once a payment fails', 'tell', false).cls).toBe('create');
    expect(ranked('alert me when usage goes over a limit')[0]).toBe('POST /usage/triggers');
  });

  it('a question starting with "when", or "when" before the caller\'s own doing, still reads', () => {
    expect(clauseIntent('when was the usage last read', undefined, false).cls).toBe('get');
    expect(clauseIntent('show the usage when I was away', 'show', false).cls).toBe('get');
    expect(ranked('when was the usage last read')[0]).not.toBe('POST /usage/triggers');
  });
});

describe('what goes on now', () => {
  it('"right now" asks for what is current or active', () => {
    expect(ranked('which sessions are open right now')[0]).toBe('GET /sessions/active');
    expect(ranked('list the sessions at the moment')[0]).toBe('GET /sessions/active');
  });
});

describe('putting into and taking out of', () => {
  it('"add X to Y" and "remove X from Y" prefer the tool working inside Y to one on Y itself', () => {
    expect(ranked('add a subscriber to my mailing list')[0]).toBe('POST /lists/{id}/members');
    const adding = ranked('add a user to the Platform team');
    expect(adding.indexOf('POST /teams/{id}/members')).toBeGreaterThanOrEqual(0);
    expect(adding.indexOf('POST /teams/{id}/members')).toBeLessThan(adding.indexOf('POST /teams'));
    const removing = ranked('remove a user from a team');
    expect(removing.indexOf('DELETE /teams/{id}/members/{user}')).toBeLessThan(2);
  });

  it('without a container, the thing itself', () => {
    expect(ranked('add a user')[0]).toBe('POST /users');
    expect(ranked('remove a user')[0]).toBe('DELETE /users/{id}');
  });
});

describe('one or many', () => {
  it('asking for many, an item whose collection is listed too loses more than an item with no list', () => {
    const data = rankingData(tracker);
    const at = (op: string) => Array.from({ length: tracker.count }, (_, i) => i).find((i) => `${tracker.tool(i).http.method} ${tracker.tool(i).http.path}` === op)!;
    const fit = (op: string, cls: 'list' | 'get') => shapeFit(tracker, data, at(op), { cls }, new Map());
    expect(fit('GET /conferences/{id}', 'list')).toBeCloseTo(fit('GET /reports/{id}', 'list') * 0.9);
    expect(fit('GET /conferences', 'get')).toBeLessThan(fit('GET /conferences/{id}', 'get'));
    expect(ranked('which conferences are there')[0]).toBe('GET /conferences');
    expect(ranked('show conference 42')[0]).toBe('GET /conferences/{id}');
  });
});
