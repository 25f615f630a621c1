// The generator's annotations (scripts/catalog/annotations.ts, effects.ts): the method and the operation's own words
// decide readOnlyHint and destructiveHint; vendor extensions and overrides can say otherwise. The held-out measure
// is in annotations-heldout.test.ts.
import { describe, expect, it } from 'vitest';
import { annotate } from '../../scripts/catalog/annotations.ts';
import { buildCatalogue, OverridesError } from '../../scripts/catalog/build.ts';
import { leadingVerbs, verbEffect } from '../../scripts/catalog/effects.ts';
import type { Operation } from '../../scripts/catalog/operations.ts';
import { reportMarkdown } from '../../scripts/catalog/report.ts';
import { wireAnnotations } from '../../src/profiles/listing-compaction.ts';
import { MINI, miniVariant } from './fixtures/mini-spec.ts';

const op = (method: string, path: string, fields: Record<string, unknown> = {}): Operation => ({ key: `${method} ${path}`, method: method.toLowerCase() as Operation['method'], path, op: fields, pathParams: [] });
const hints = (method: string, path: string, title: string, fields: Record<string, unknown> = {}) => {
  const { readOnlyHint, destructiveHint, idempotentHint } = annotate(op(method, path, fields), title).annotations;
  return { readOnlyHint, destructiveHint, idempotentHint };
};
const destructive = (method: string, path: string, title: string, fields?: Record<string, unknown>) => hints(method, path, title, fields).destructiveHint;

describe('what the method and the words decide', () => {
  it('reads are read-only; a DELETE is destructive whatever it says', () => {
    expect(hints('GET', '/repos/{o}/{r}', 'Get a repository')).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false });
    expect(hints('DELETE', '/user/starred/{o}/{r}', 'Unstar a repository')).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    // A GET whose own summary ends something is no read.
    expect(hints('GET', '/logout', 'Log out', { summary: 'Revoke the current session' })).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('a PUT or PATCH that replaces or overwrites is destructive; one that adds a relation or flips a state is not', () => {
    for (const title of ['Update a repository', 'Set labels for an issue', 'Replace all repository topics', 'Create or update file contents', 'Merge a pull request', 'Reset a token', 'Rename a branch'])
      expect(destructive('PUT', '/x/{id}', title), title).toBe(true);
    for (const title of ['Star a repository', 'Follow a user', 'Add a repository collaborator', 'Lock an issue', 'Mark a thread as read', 'Enable a workflow', 'Assign a role to a team'])
      expect(destructive('PUT', '/x/{id}', title), title).toBe(false);
    // Nothing said: destructive (a PUT replaces what is at its path).
    expect(destructive('PUT', '/x/{id}', 'Frobnicate the widget')).toBe(true);
    expect(destructive('PATCH', '/x/{id}', 'Perform a partial update to a segment')).toBe(true);
  });

  it('a POST is not destructive unless its meaning is: removing, ending, overwriting or acting as someone', () => {
    // "Initiate a droplet action": a light verb's object names an action only when it is made of one ("deletion"),
    // not when it merely shares a root ("droplet", "drop").
    for (const title of ['Create an issue', 'Send a message', 'Re-run a workflow', 'Render a Markdown document', 'Capture a payment', 'Frobnicate the widget', 'Initiate a droplet action', 'Skip to the next track'])
      expect(destructive('POST', '/x', title), title).toBe(false);
    for (const title of ['Cancel a workflow run', 'Revoke a list of credentials', 'Reset the password', 'Remove team members', 'Impersonate a user', 'Update a customer', 'Transfer a repository', 'Request account deletion'])
      expect(destructive('POST', '/x', title), title).toBe(true);
    // The path's action when the words say none; a noun beside a verb is no action ("Create a remove token").
    expect(destructive('POST', '/users/{id}/lifecycle/reset_factors', '')).toBe(true);
    expect(destructive('POST', '/runners/remove-token', 'Create a remove token')).toBe(false);
    // A description that says it cannot be taken back.
    expect(destructive('POST', '/x', 'Archive a project', { description: 'Archived projects are permanently deleted after 30 days.' })).toBe(true);
  });

  it('reads verbs by meaning: lists, prefixes and WordNet', () => {
    expect(leadingVerbs('Update, add, or delete expiring targets')).toEqual(['update', 'add', 'delete']);
    expect(leadingVerbs('Permanently deletes a file')).toEqual(['deletes']);
    expect(verbEffect('unpin')).toBe('flip');
    expect(verbEffect('undelete')).toBe('add');
    expect(verbEffect('resend')).toBe('add');
    // Outside the lists: "annul" shares a sense with "void", "obliterate" with "wipe out".
    expect(verbEffect('annul')).toBe('end');
    expect(verbEffect('obliterate')).toBe('remove');
  });

  it('reads vendor extensions: explicit MCP hints, CRUD actions and scopes named for deleting', () => {
    expect(hints('POST', '/x', 'Cancel an order', { 'x-speakeasy-mcp': { destructiveHint: false } }).destructiveHint).toBe(false);
    expect(hints('POST', '/x', 'Create a thing', { 'x-speakeasy-mcp': { annotations: { readOnlyHint: true } } })).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(destructive('PATCH', '/api/v1/pods/{name}', 'Partially update the specified Pod', { 'x-kubernetes-action': 'patch' })).toBe(true);
    expect(destructive('POST', '/api/v1/namespaces/{ns}/pods', 'Create a Pod', { 'x-kubernetes-action': 'post' })).toBe(false);
    expect(destructive('POST', '/linode/instances/{id}/rebuild', 'Rebuild Linode', { 'x-linode-cli-action': 'rebuild' })).toBe(true);
    expect(destructive('POST', '/rest/api/3/thing/bulk', 'Bulk thing', { 'x-atlassian-connect-scope': 'DELETE' })).toBe(true);
  });

  it('every listing states readOnlyHint and destructiveHint, idempotentHint for writes, openWorldHint and the title', () => {
    expect(wireAnnotations({ title: 'Get a pet', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true })).toEqual({ title: 'Get a pet', readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    expect(wireAnnotations({ title: 'Delete a pet', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true })).toEqual({ title: 'Delete a pet', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
  });
});

describe('spec and overrides', () => {
  it('a spec operation with x-speakeasy-mcp hints keeps them through the build', async () => {
    const spec = miniVariant((d) => (d.paths['/pets/{name}'].put['x-speakeasy-mcp'] = { destructiveHint: false, idempotentHint: true }));
    const t = (await buildCatalogue(spec, { sweep: false })).catalogue.tools.find((x) => x.name === 'update_pet')!;
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  });

  it('overrides set any hint and the confirmation per tool, with a reason; the report lists writes read against their method', async () => {
    const r = await buildCatalogue(MINI, {
      sweep: false,
      overrides: {
        tools: {
          update_pet: { annotations: { destructiveHint: false }, reason: 'only sets the pet name, which the API keeps a history of' },
          create_pet: { confirm: true, annotations: { openWorldHint: false }, reason: 'creating a pet bills the account' },
        },
      },
    });
    const byName = new Map(r.catalogue.tools.map((t) => [t.name, t]));
    expect(byName.get('update_pet')!.annotations.destructiveHint).toBe(false);
    expect(byName.get('create_pet')).toMatchObject({ confirm: true, annotations: { openWorldHint: false } });
    expect(byName.get('list_pets')!.confirm).toBeUndefined();
    const md = reportMarkdown(r.report);
    expect(md).toMatch(/^- update_pet \(PUT\): not destructive, by override$/m);
    expect(md).toMatch(/^- read-only: \d+; writes: /m);
  });

  it('refuses hint overrides without a reason, unknown hints, non-booleans and a destructive read', async () => {
    const bad = (ov: Record<string, unknown>) => buildCatalogue(MINI, { sweep: false, overrides: { tools: { update_pet: ov } } as never });
    await expect(bad({ annotations: { destructiveHint: false } })).rejects.toThrow(/annotations needs a "reason"/);
    await expect(bad({ confirm: true })).rejects.toThrow(/confirm needs a "reason"/);
    await expect(bad({ annotations: { dangerHint: true }, reason: 'x' })).rejects.toThrow(/unknown hint "dangerHint"/);
    await expect(bad({ annotations: { destructiveHint: 'no' }, reason: 'x' })).rejects.toThrow(/destructiveHint: must be boolean/);
    await expect(bad({ annotations: { readOnlyHint: true, destructiveHint: true }, reason: 'x' })).rejects.toThrow(OverridesError);
    await expect(bad({ confirm: 'yes', reason: 'x' })).rejects.toThrow(/confirm: must be boolean/);
    await expect(bad({ reason: 'x' })).rejects.toThrow(/"reason" only goes with/);
  });
});
