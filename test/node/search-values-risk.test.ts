// Search on fresh APIs (issues 38 and 40): values in a query are no words, "stop X" is read by what it stops, and a
// destructive tool never leads unless the query's verb asks for its effect. A small time-tracking and user-admin
// spec built by the generator, and the committed GitHub catalogue.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { rankTools, searchTools } from '../../src/discovery/search.ts';
import { clearSearchCaches } from '../../src/discovery/search-cache.ts';
import { withoutValues, words } from '../../src/discovery/search-text.ts';
import { tmp } from './fixtures/mini-spec.ts';

const op = (summary: string, extra: Record<string, unknown> = {}) => ({ summary, responses: { '204': { description: 'done' } }, ...extra });
const body = (properties: Record<string, unknown>) => ({ requestBody: { content: { 'application/json': { schema: { type: 'object', properties } } } } });
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Timesheets', version: '1' },
  servers: [{ url: 'https://timesheets.example' }],
  paths: {
    '/timers': { get: op('List timers'), post: op('Start a timer for a task', body({ task: { type: 'string' } })) },
    '/timers/{id}': {
      parameters: [id],
      get: op('Get a timer'),
      delete: op('Delete a timer', { description: 'Deletes the running timer and the time it logged. A running timer stops.' }),
    },
    '/timers/{id}/stop': { parameters: [id], patch: op('Stop a timer') },
    '/users': { get: op('List users'), post: op('Create a user account', body({ email: { type: 'string' } })) },
    '/users/{id}': {
      parameters: [id],
      get: op('Get a user account'),
      put: op('Update a user account', body({ locked: { type: 'boolean' }, email: { type: 'string' } })),
      delete: op('Delete a user account', { description: 'Deletes a user account that is locked or unlocked, and all of its data.' }),
    },
    '/users/{id}/impersonation': { parameters: [id], post: op('Impersonate a user', { description: 'Signs in as the user account, even a locked one.' }) },
    '/users/{id}/reset-password': { parameters: [id], put: op('Reset the password of a user account', body({ temporary: { type: 'boolean' } })) },
  },
};

/** Tools whose title names several effects, or whose method alone makes them destructive. */
const SIGNING = {
  openapi: '3.0.3',
  info: { title: 'Signing', version: '1' },
  servers: [{ url: 'https://signing.example' }],
  paths: {
    '/envelopes': { post: op('Create an envelope', { description: 'Creates an envelope and sends it to its signers.', ...body({ status: { type: 'string', enum: ['created', 'sent'] } }) }) },
    '/envelopes/{id}': { parameters: [id], put: op('Send, void, or modify a draft envelope', body({ status: { type: 'string' } })) },
    '/envelopes/{id}/lock': { parameters: [id], put: op('Lock an envelope'), delete: op('Unlock an envelope') },
    '/envelopes/{id}/void': { parameters: [id], post: op('Void an envelope') },
  },
};

let timesheets: LoadedCatalogue;
let signing: LoadedCatalogue;
const firstIn = (loaded: LoadedCatalogue, query: string) => {
  const [hit] = rankTools(loaded, sliceOf(loaded, {}), query, { limit: 5 });
  const t = loaded.tool(hit!.index);
  return `${t.http.method} ${t.http.path}`;
};
const first = (query: string) => firstIn(timesheets, query);

beforeAll(async () => {
  const build = async (name: string, spec: object) => {
    const file = join(tmp(), `${name}.json`);
    writeFileSync(file, JSON.stringify(spec));
    return loadCatalogue((await buildCatalogue(file, { sweep: false })).text);
  };
  timesheets = await build('timesheets', SPEC);
  signing = await build('signing', SIGNING);
}, 60_000);

describe('values are not words', () => {
  it('blanks numbers, versions, #ids, hashes, addresses and sizes; a number glued to a word loses only its digits', () => {
    expect(withoutValues('publish release v1.2.3').trim()).toBe('publish release');
    expect(withoutValues('comment on issue #42').trim()).toBe('comment on issue');
    expect(withoutValues('report a CI status for commit abc1234').trim()).toBe('report a CI status for commit');
    expect(withoutValues('add bob@example.com to https://x.example/y').split(/\s+/).filter(Boolean)).toEqual(['add', 'to']);
    expect(withoutValues('grow a volume to 100GB on 2024-01-05 at 9am').split(/\s+/).filter(Boolean)).toEqual(['grow', 'a', 'volume', 'to', 'on', 'at']);
    expect(words('OAuth2 application')).toEqual(['oauth', '2', 'application']);
    expect(words('create an OAuth app')).toEqual(words('create an oauth app'));
  });

  it('a version or an issue number does not pull in tools whose names carry digits (GitHub)', () => {
    const github = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
    const all = sliceOf(github, {});
    expect(searchTools(github, all, 'publish release v1.2.3')[0]!.name).toBe('repos_create_release');
    expect(searchTools(github, all, 'comment on issue #42')[0]!.name).toBe('issues_create_comment');
    expect(searchTools(github, all, 'get the release tagged v2.0.1')[0]!.name).toBe('repos_get_release_by_tag');
    // Stopping a run cancels it; deleting it is not what was asked.
    expect(searchTools(github, all, 'stop workflow run 4521')[0]!.name).toBe('actions_cancel_workflow_run');
  });
});

describe('stopping and destroying', () => {
  it('"stop X" prefers the thing\'s own stop to deleting it', () => {
    expect(first('stop the running timer')).toBe('PATCH /timers/{id}/stop');
    expect(first('stop timer 1234')).toBe('PATCH /timers/{id}/stop');
  });

  it('a query that asks to destroy gets the destructive tool first', () => {
    expect(first('delete a timer')).toBe('DELETE /timers/{id}');
    expect(first('remove a user account')).toBe('DELETE /users/{id}');
    expect(first('log in as a user')).toBe('POST /users/{id}/impersonation');
    expect(first('reset the password of a user')).toBe('PUT /users/{id}/reset-password');
  });

  it('a query that asks for none of it never gets a deleting, resetting or impersonating tool first', () => {
    for (const query of ['unlock a locked user account', 'restore a user account', 'resume the timer', 'user account', 'locked accounts']) {
      const [hit] = rankTools(timesheets, sliceOf(timesheets, {}), query, { limit: 5 });
      const t = timesheets.tool(hit!.index);
      expect(t.http.method === 'DELETE' || /impersonation|reset/.test(t.http.path), `${query}: ${t.http.method} ${t.http.path}`).toBe(false);
    }
  });
});

describe('the query\'s verb asks for the tool\'s effect, read with the generator\'s lexicon', () => {
  it('a tool whose title names a harm beside the asked verb does not lead ("Send, void, or modify")', () => {
    expect(firstIn(signing, 'send this contract out for signature')).toBe('POST /envelopes');
    expect(firstIn(signing, 'send an envelope')).toBe('POST /envelopes');
    // Voiding ends the envelope, which the verb asks for.
    expect(firstIn(signing, 'void an envelope')).toBe('POST /envelopes/{id}/void');
  });

  it('a tool destructive only by its method does what its own verb says', () => {
    // A DELETE titled "Unlock an envelope" removes the lock: "unlock" asks for it, "lock" for the PUT (whose path
    // names the lock too, which is no verb of the DELETE's).
    expect(firstIn(signing, 'unlock an envelope')).toBe('DELETE /envelopes/{id}/lock');
    expect(firstIn(signing, 'lock an envelope')).toBe('PUT /envelopes/{id}/lock');
  });

  it('an index written before it kept what tools destroy reads it from their titles and flags', () => {
    const { harms: _h, ...older } = signing.searchData()!;
    const before: LoadedCatalogue = Object.assign(Object.create(Object.getPrototypeOf(signing) as object) as LoadedCatalogue, signing, { searchData: () => older });
    clearSearchCaches();
    try {
      expect(firstIn(before, 'send an envelope')).toBe('POST /envelopes');
      expect(firstIn(before, 'unlock an envelope')).toBe('DELETE /envelopes/{id}/lock');
    } finally {
      clearSearchCaches();
    }
  });

  it('resetting is asked only by its own verbs, not by any change', () => {
    expect(first('reset the password of a user')).toBe('PUT /users/{id}/reset-password');
    expect(first('change the password of a user account')).not.toBe('PUT /users/{id}/reset-password');
  });
});
