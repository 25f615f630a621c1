// Operation shapes (what an operation does, read from method, path and title verb) and clause intents (what a query
// asks to do): the two halves of search's structural fit (src/discovery/search-shape.ts, search-fit.ts).
import { describe, expect, it } from 'vitest';
import { wordnetLexicon } from '../../scripts/catalog/lexicon.ts';
import { queryClauses, titlePhrase, titleVerbs } from '../../src/discovery/head-nouns.ts';
import { clauseIntent } from '../../src/discovery/search-fit.ts';
import { searchDocument } from '../../src/discovery/search-doc.ts';
import { buildSearchIndex, decodeSearchIndex } from '../../src/discovery/search-index.ts';
import { operationShape } from '../../src/discovery/search-shape.ts';
import { stem, words } from '../../src/discovery/search-text.ts';
import { verbClass } from '../../src/discovery/verb-classes.ts';
import { isDeprecated } from '../../scripts/catalog/deprecated.ts';

const isVerb = (w: string) => wordnetLexicon().verb!(w);

describe('operation shapes', () => {
  it('reads REST collections and items by method', () => {
    expect(operationShape('GET', '/repos/{owner}/{repo}/pulls', 'list', true)).toMatchObject({ act: 'list', nouns: ['repos', 'pulls'], target: ['pulls'] });
    expect(operationShape('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 'get', false)).toMatchObject({ act: 'get', target: ['pulls'] });
    expect(operationShape('GET', '/user', 'get', false).act).toBe('get');
    expect(operationShape('POST', '/v1/customers', undefined, false).act).toBe('create');
    expect(operationShape('POST', '/v1/customers/{customer}', undefined, false).act).toBe('update');
    expect(operationShape('PATCH', '/repos/{owner}/{repo}', 'update', false).act).toBe('update');
    expect(operationShape('DELETE', '/repos/{owner}/{repo}', 'delete', false).act).toBe('delete');
  });

  it("takes the title's verb class for writes: an Add on a PUT creates", () => {
    expect(operationShape('PUT', '/repos/{owner}/{repo}/collaborators/{username}', 'add', false).act).toBe('create');
    // A read keeps its method's meaning whatever the title says.
    expect(operationShape('GET', '/repos/{owner}/{repo}/pulls', 'create', false).act).toBe('list');
    // A POST whose title removes deletes; a GET of a singular path lists only when its title names a plural.
    expect(operationShape('POST', '/repos/{owner}/{repo}/issues/{n}/labels', 'remove', false).act).toBe('delete');
    expect(operationShape('GET', '/calendars/{id}/acl', 'returns', true).act).toBe('list');
    expect(operationShape('GET', '/calendars/{id}/acl', 'returns', false).act).toBe('get');
  });

  it('finds actions of their own: path verbs, RPC parts, Google suffixes and fragments', () => {
    expect(operationShape('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge', 'merge', false)).toMatchObject({ act: 'action', action: 'merge', nouns: ['repos', 'pulls'] });
    expect(operationShape('POST', '/repositories/{w}/{r}/pullrequests/{id}/approve', undefined, false, isVerb)).toMatchObject({ act: 'action', action: 'approve' });
    expect(operationShape('POST', '/chat.update', undefined, false, isVerb)).toMatchObject({ act: 'action', action: 'update', nouns: ['chat'] });
    expect(operationShape('POST', '/users/{userId}/settings/cse/keypairs/{keyPairId}:obliterate', undefined, false)).toMatchObject({ act: 'action', action: 'obliterate' });
    expect(operationShape('PUT', '/files/{file_id}#add_shared_link', undefined, false)).toMatchObject({ act: 'action', action: 'add' });
    // A plural or a noun is a resource, not an action.
    expect(operationShape('POST', '/repos/{owner}/{repo}/forks', 'create', false, isVerb).act).toBe('create');
    expect(operationShape('POST', '/files/content', 'upload', false, isVerb).act).toBe('create');
  });

  it("reads a compound segment as a noun when the title's verb says another class", () => {
    // "Update the next build number": the segment names a number; "build" is no action here.
    const buildNumber = operationShape('PUT', '/repositories/{workspace}/{repo}/pipelines_config/build_number', 'update', false, isVerb);
    expect(buildNumber).toMatchObject({ act: 'update', target: ['build', 'number'] });
    expect(buildNumber.action).toBeUndefined();
    // A one-word segment stays an action whatever the title's verb ("Mark a finalized invoice as void").
    expect(operationShape('POST', '/v1/invoices/{invoice}/void', 'mark', false, isVerb)).toMatchObject({ act: 'action', action: 'void' });
    // And a compound one whose first word is the title's verb ("Set the parent of a task").
    expect(operationShape('POST', '/tasks/{task_gid}/setParent', 'set', false, isVerb)).toMatchObject({ act: 'action', action: 'set' });
  });

  it('reads RPC-style reads by their last part, and drops versions and extensions', () => {
    expect(operationShape('GET', '/conversations.list', undefined, false)).toMatchObject({ act: 'list', nouns: ['conversations'] });
    expect(operationShape('GET', '/users.lookupByEmail', undefined, false)).toMatchObject({ act: 'get', nouns: ['users'] });
    expect(operationShape('GET', '/2010-04-01/Accounts/{AccountSid}/Calls.json', undefined, false)).toMatchObject({ act: 'list', nouns: ['accounts', 'calls'] });
    expect(operationShape('GET', '/users/me/calendarList', undefined, false).act).toBe('list');
  });
});

describe('clause intents', () => {
  it('maps everyday verbs to classes', () => {
    expect(verbClass(stem('spin'))).toBe('create');
    expect(verbClass(stem('rename'))).toBe('update');
    expect(verbClass(stem('cancel'))).toBe('delete');
    expect(verbClass(stem('show'))).toBe('get');
    expect(verbClass(stem('merge'))).toBeUndefined();
  });

  it('reads questions, plurals, phrasal verbs and unknown verbs', () => {
    expect(clauseIntent('who starred this repo', stem('starred'), false)).toEqual({ cls: 'list' });
    expect(clauseIntent('who am i', undefined, false)).toEqual({ cls: 'get' });
    expect(clauseIntent('show me the open issues', stem('show'), true)).toEqual({ cls: 'list' });
    expect(clauseIntent('set up a webhook endpoint', stem('set'), false)).toEqual({ cls: 'create' });
    // Stopping what goes on changes its state; ending a session deletes it.
    expect(clauseIntent('hang up a call', stem('hang'), false)).toEqual({ cls: 'update', stops: true });
    expect(clauseIntent('stop the running timer', stem('stop'), false)).toEqual({ cls: 'update', stops: true });
    expect(clauseIntent('shut down a server', stem('shut'), false)).toEqual({ cls: 'update', stops: true });
    expect(clauseIntent('log a user out of every session', stem('log'), false)).toEqual({ cls: 'delete' });
    expect(clauseIntent('stop sharing the file with Bob', stem('stop'), false)).toEqual({ cls: 'delete' });
    expect(clauseIntent('merge this pull request', stem('merge'), false)).toEqual({ writes: true });
    expect(clauseIntent('pull request files', undefined, true)).toEqual({});
    expect(clauseIntent('turn on notifications for a repo', stem('turn'), false)).toEqual({ cls: 'update' });
    expect(clauseIntent('look up a user by email', stem('look'), false)).toEqual({ cls: 'get' });
    // A question reads even when its first word is no verb; "who is" asks for one person, "which …" for several.
    expect(clauseIntent('is the CI green on this commit', undefined, false)).toEqual({ cls: 'get' });
    expect(clauseIntent('who is the owner of this repo', undefined, false)).toEqual({ cls: 'get' });
    // "… whenever X happens" asks to subscribe to events, whatever the verb.
    expect(clauseIntent('tell me whenever this file is edited', stem('tell'), false)).toEqual({ cls: 'create' });
    // "who is in …" asks who belongs to something: several people.
    expect(clauseIntent('who is in this channel', undefined, false)).toEqual({ cls: 'list' });
    expect(clauseIntent('which repos have I starred', undefined, true)).toEqual({ cls: 'list' });
    expect(clauseIntent('delete all my drafts', stem('delete'), true)).toEqual({ cls: 'delete' });
    // "set" makes it so whether or not the thing exists: a create fits as well as an update.
    expect(clauseIntent('set a price for a product', stem('set'), false)).toEqual({ cls: 'update', alt: 'create' });
    expect(clauseIntent('buy a phone number', stem('buy'), false)).toEqual({ cls: 'create' });
  });

  it("finds a request's verb: before a preposition or a count, after 'I want to', and in two-verb titles", () => {
    const verbs = titleVerbs([]);
    const verbOf = (q: string) => queryClauses(q, verbs)[0]!.verb;
    expect(verbOf('comment on a pull request')).toBe('comment');
    expect(verbOf('log two hours on a ticket')).toBe('log');
    expect(verbOf('I want to delete a repository')).toBe('delete');
    expect(verbOf("I'd like to rename a channel")).toBe('rename');
    // "like" leads only before "to": here it is the request's verb.
    expect(verbOf('like a video')).toBe('like');
    expect(queryClauses('list issues with a label and their comments', verbs).map((c) => [c.verb, c.head, c.context])).toEqual([
      ['list', 'issues', undefined],
      ['list', 'comments', 'issues'],
    ]);
    expect(titlePhrase('Create or update a repository secret', titleVerbs(['Create a thing', 'Create b', 'Update a', 'Update b']))).toEqual({ verb: 'create', also: 'update', head: 'secret' });
    // A preposition is never the verb, though a determiner follows it.
    expect(verbOf('who is in this channel')).toBeUndefined();
  });

  it('ends noun phrases at adverbs and times, skips "one or more", and finds what a changed thing belongs to', () => {
    const verbs = titleVerbs([]);
    const clause = (q: string) => queryClauses(q, verbs)[0]!;
    expect(clause('delete an email permanently')).toMatchObject({ verb: 'delete', head: 'email' });
    expect(clause('list the calls yesterday')).toMatchObject({ head: 'calls' });
    expect(clause('who called us yesterday').head).toBeUndefined();
    expect(titlePhrase('Get Currently Playing Track', titleVerbs(['Get a', 'Get b']))).toEqual({ verb: 'get', head: 'track' });
    // Nouns ending in -ly are no adverbs.
    expect(clause('list the office supply')).toMatchObject({ head: 'supply' });
    expect(clause('change the priority of an issue')).toMatchObject({ verb: 'change', head: 'priority', owner: 'issue' });
    expect(clause('set a due date on a task')).toMatchObject({ head: 'date', owner: 'task' });
    expect(titlePhrase('Create one or more sales invoices', titleVerbs(['Create a', 'Create b']))).toEqual({ verb: 'create', head: 'invoices' });
    expect(titlePhrase('List conferences belonging to the account', titleVerbs(['List a', 'List b']))).toEqual({ verb: 'list', head: 'conferences' });
    // A phrasal verb's particle is no noun, a possessive's "s" no word, a title's leading adverb no verb.
    expect(clause('set up a webhook for my repo')).toMatchObject({ verb: 'set', head: 'webhook' });
    expect(clause('switch off the checkout flag in production')).toMatchObject({ verb: 'switch', head: 'flag' });
    expect(clause("remove the team's shared drive")).toMatchObject({ verb: 'remove', head: 'drive' });
    expect(clause("what's the stream key of my broadcast")).toMatchObject({ head: 'key', owner: 'broadcast' });
    expect(words("the team's drive, what's new")).toEqual(['the', 'team', 'drive', 'what', 'new']);
    expect(titlePhrase('Permanently delete a shared drive', titleVerbs(['Permanently delete a', 'Delete b']))).toEqual({ verb: 'delete', head: 'drive' });
    // Elsewhere in a title a participle is part of the name.
    expect(titlePhrase('List GitHub-hosted runners for an organization', titleVerbs(['List a', 'List b']))).toEqual({ verb: 'list', head: 'runners' });
  });
});

describe('people nouns', () => {
  it('count persons and social groups, never collections of things', () => {
    const wn = wordnetLexicon();
    for (const w of ['member', 'collaborator', 'team', 'audience', 'organization', 'crew']) expect(wn.person(w), w).toBe(true);
    for (const w of ['package', 'collection', 'queue', 'series', 'batch', 'channel', 'repository']) expect(wn.person(w), w).toBe(false);
  });
});

describe('deprecation', () => {
  it("reads OpenAPI's flag and the vendor extensions that say the same", () => {
    expect(isDeprecated({ deprecated: true })).toBe(true);
    expect(isDeprecated({ 'x-release-status': 'DEPRECATED' })).toBe(true);
    expect(isDeprecated({ 'x-deprecated': true })).toBe(true);
    expect(isDeprecated({ 'x-stability-level': 'deprecated' })).toBe(true);
    expect(isDeprecated({ 'x-release-status': 'BETA' })).toBe(false);
    expect(isDeprecated({ 'x-deprecated': false, deprecated: false })).toBe(false);
    // A description mentioning deprecation is not a flag.
    expect(isDeprecated({ 'x-note': 'deprecated' })).toBe(false);
  });
});

describe('search index shapes', () => {
  it('stores each tool’s shape and reads it back', () => {
    const tool = (name: string, method: string, path: string, title: string) => ({ name, title, description: title, toolsets: [], http: { method, path } }) as never;
    const data = buildSearchIndex(
      [tool('a', 'GET', '/pets', 'List pets'), tool('b', 'POST', '/pets/{id}/adopt', 'Adopt a pet'), tool('c', 'DELETE', '/pets/{id}', '[Deprecated] Delete a pet')],
      {},
    );
    expect(data.acts).toBe('lad');
    const index = decodeSearchIndex(data);
    expect(index.acts).toEqual(['list', 'action', 'delete']);
    expect(index.terms[index.actions![1]!]).toBe(stem('adopt'));
    expect([...index.nouns![0]!].map((t) => index.terms[t])).toEqual([stem('pets')]);
    expect([...index.deprecated]).toEqual([0, 0, 1]);
  });

  it('stores what each destructive tool may destroy, read from its own words before its method', () => {
    const tool = (method: string, path: string, title: string, readOnlyHint: boolean, destructiveHint: boolean) =>
      ({ name: title, title, description: title, toolsets: [], http: { method, path }, annotations: { title, readOnlyHint, destructiveHint, idempotentHint: false, openWorldHint: true } }) as never;
    const data = buildSearchIndex(
      [
        tool('GET', '/pets', 'List pets', true, false),
        tool('PUT', '/envelopes/{id}', 'Send, void, or modify a draft envelope', false, true),
        tool('DELETE', '/pets/{id}/lock', 'Unlock a pet', false, true),
        tool('PUT', '/pets/{id}/password', 'Reset the password', false, true),
        tool('POST', '/users/{id}/impersonation', 'Start a session', false, true),
        tool('POST', '/pets', 'Create a pet', false, false),
      ],
      {},
    );
    // Nothing; ends (void); removes by its method alone (its words only unlock); resets; acts as someone (its path).
    expect(data.harms).toBe('-eXri-');
    expect(decodeSearchIndex(data).harms).toEqual([undefined, { effect: 'end', methodOnly: false }, { effect: 'remove', methodOnly: true }, { effect: 'reset', methodOnly: false }, { effect: 'act_as', methodOnly: false }, undefined]);
  });
});

describe('search documents', () => {
  const doc = (method: string, path: string, inputSchema: Record<string, unknown>) =>
    searchDocument({ name: 'x', title: 'Do x', description: '', toolsets: [], http: { method, path } as never, inputSchema }, () => undefined, new Map(), operationShape(method, path, undefined, false));
  const review = { type: 'object', properties: { body: { type: 'object', properties: { event: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] } } } } };

  it('index the states and actions a write can set, nested ones included', () => {
    const tf = doc('POST', '/pulls/{n}/reviews', review).tf;
    expect(tf.get(stem('approve'))).toBeGreaterThan(0);
    expect(tf.get(stem('changes'))).toBeGreaterThan(0);
  });

  it("leave out a read's enum values (filters), long enums and values that are not words", () => {
    expect(doc('GET', '/pulls/{n}/reviews', review).tf.get(stem('approve'))).toBeUndefined();
    const countries = { type: 'object', properties: { country: { type: 'string', enum: ['Albania', 'Belgium', 'Chile', 'Denmark', 'Estonia', 'France', 'Germany', 'Hungary', 'Ireland'] }, v: { enum: ['2024-01-01', 'a/b'] } } };
    const tf = doc('POST', '/things', countries).tf;
    expect(tf.get(stem('albania'))).toBeUndefined();
    expect([...tf.keys()].some((t) => /2024|^a$/.test(t))).toBe(false);
  });
});
