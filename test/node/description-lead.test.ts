// Issue 40: every description begins with a plain sentence of what the tool does, compact listings serve it, and
// the tools-mode instructions name the toolsets with their purposes and say how to reach the rest.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { leadSentence, ownerOf, unnamedResource, withLead } from '../../scripts/catalog/description-lead.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { compactDescription } from '../../src/profiles/listing-compaction.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { buildView } from '../../src/profiles/view.ts';
import { toolsInstructions } from '../../src/tools/instructions.ts';

const github = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));

describe('the lead sentence', () => {
  it('names what the resource belongs to when the title does not', () => {
    expect(ownerOf('/repos/{owner}/{repo}/issues/{issue_number}/comments')).toBe('issue');
    expect(ownerOf('/{realm}/groups/{id}/role-mappings')).toBe('group');
    expect(ownerOf('/repos/{owner}/{repo}/forks')).toBe('repository');
    expect(ownerOf('/v2/droplets')).toBeUndefined();
    expect(ownerOf('/repos/{owner}/{repo}')).toBeUndefined();
    expect(leadSentence('Get role mappings', '/{realm}/groups/{id}/role-mappings')).toBe('Get role mappings for a group.');
    expect(leadSentence('Start stopwatch on an issue', '/repos/{owner}/{repo}/issues/{index}/stopwatch/start')).toBe('Start stopwatch on an issue.');
    expect(leadSentence('List stargazers', '/repos/{o}/{r}/stargazers', 'Scope: repository. Lists the people …')).toBe('List stargazers.');
    expect(leadSentence('Get a user session', '/users/{id}/sessions/{sid}/x')).toBe('Get a user session.');
    expect(leadSentence('List keys', '/users/{id}/keys')).toBe('List keys for a user.');
    expect(leadSentence('List invitations', '/orgs/{org}/invitations')).toBe('List invitations for an organization.');
  });

  it('names the resource when the title names no noun of its path (generated specs give every operation one generic title)', () => {
    expect(leadSentence('Delete a resource', '/youtube/v3/playlistItems')).toBe('Delete a resource (playlist item).');
    expect(leadSentence('Insert a new resource into this collection.', '/youtube/v3/videos')).toBe('Insert a new resource into this collection (video).');
    expect(leadSentence('Fetch an instance', '/2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}/Recordings/{Sid}.json')).toBe('Fetch an instance (recording) for a call.');
    // Any noun of the path named, in any spelling, and the title stands: squashed compounds, camel case, plurals.
    expect(unnamedResource('Create a PlacementGroup', '/placement_groups')).toBeUndefined();
    expect(unnamedResource("Get an organization's on-call users", '/api-public/v1/oncall/current')).toBeUndefined();
    expect(unnamedResource('Add issue types to issue type scheme', '/rest/api/3/issuetypescheme/{id}/issuetype')).toBeUndefined();
    expect(unnamedResource('Start specified task', '/ScheduledTasks/Running/{taskId}')).toBeUndefined();
    expect(unnamedResource('List teams', '/v2/teams')).toBeUndefined();
  });

  it('replaces a summary that repeats the title or a bare METHOD /path, and keeps a description already led by the title', () => {
    expect(withLead('Create an issue\n\nAny user with pull access can create an issue.', 'Create an issue', 'POST', '/repos/{o}/{r}/issues')).toBe(
      'Create an issue for a repository.\n\nAny user with pull access can create an issue.',
    );
    expect(withLead('PUT /{realm}/users/{id}/groups/{groupId}', 'Add a user to a group', 'PUT', '/{realm}/users/{id}/groups/{groupId}')).toBe('Add a user to a group.');
    expect(withLead('Soft-reboot a Server. Reboots it.', 'Soft-reboot a Server', 'POST', '/servers/{id}/actions/reboot')).toBe('Soft-reboot a Server. Reboots it.');
    expect(withLead('[Deprecated] Cuts power.', 'Power off a Server', 'POST', '/servers/{id}/actions/poweroff')).toBe('[Deprecated] Power off a Server.\n\nCuts power.');
  });

  it('compact listings serve the lead joined to the paragraph after it; search hits, which show the title, do not', () => {
    const description = 'Create an issue for a repository.\n\n> [!NOTE]\n> A note.\n\nAny user with pull access can create an issue.';
    expect(compactDescription(description, 'Create an issue', 160)).toBe('Create an issue for a repository. Any user with pull access can create an issue.');
    expect(compactDescription(description, 'Create an issue', 160, false)).toBe('Any user with pull access can create an issue.');
    // A spec's summary that repeats the title leads too, with a full stop.
    expect(compactDescription('Merge a pull request\n\nMerges a pull request into the base branch.', 'Merge a pull request', 160)).toBe(
      'Merge a pull request. Merges a pull request into the base branch.',
    );
    expect(compactDescription('Delete the client', 'Delete the client', 160)).toBe('Delete the client');
  });

  it('every tool GitHub lists begins with its title', () => {
    const listed = buildView(github, sliceOf(github, {}), PROFILES.default).tools;
    const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');
    const led = listed.filter((t) => norm(t.description.replace(/^\[Deprecated\] /, '')).startsWith(norm(t.title)));
    expect(led.length / listed.length).toBeGreaterThan(0.97);
  });
});

describe('tools-mode instructions', () => {
  it('name the endpoint toolsets with their purposes and point to the rest', () => {
    const defaults = sliceOf(github, { toolsets: [...(github.catalogue.defaultToolsets ?? [])] });
    const text = toolsInstructions(github, defaults, {});
    for (const name of github.catalogue.defaultToolsets ?? []) expect(text).toMatch(new RegExp(`^- ${name} \\(\\d+\\): \\S`, 'm'));
    expect(text).toContain('/mcp/discover');
    expect(text).toContain('/mcp/code');
    expect(text).toMatch(/\/mcp\/x\/<toolset>/);
    expect(text.length).toBeLessThan(1500);
    // The whole catalogue has nothing more to point to, and a large slice names its toolsets beyond the first 16.
    const all = toolsInstructions(github, sliceOf(github, {}), {});
    expect(all).not.toContain('/mcp/discover');
    expect(all).toMatch(/^- and \w+/m);
    expect(toolsInstructions(github, defaults, { warning: 'Warning: too many.' })).toMatch(/\nWarning: too many\.$/);
  });
});
