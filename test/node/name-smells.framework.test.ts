// Name smells on framework-made specs (docs/naming.md, "Name smells"): every spec of the regression set (FastAPI,
// Springfox and springdoc, API Platform, Django REST, path-echo ids, and specs without operationIds; tuning and
// held-out) has at most 2% of its tools with a smell, and docs/naming.md shows the table the code measures.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { docsSmellTable, FRAMEWORK_SET, measureFrameworkSet, SMELL_TARGET, smellTable, type SmellRow } from '../../scripts/catalog/name-framework-set.ts';
import { countSmells, isCutTitle, isNounFirstTitle, nameSmells, splitAcronyms } from '../../scripts/catalog/name-smells.ts';

describe('name smells: the measures', () => {
  it('sees a framework-made id passed through, a path echo, a collision settled by the method', () => {
    expect(nameSmells({ name: 'get_secret_id_endpoint_id_secret_get', title: 'Get Endpoint Secret', operationId: 'get_endpoint_secret_api_v1_app__app_id__endpoint__endpoint_id__secret__get', method: 'get', path: '/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret/' })).toEqual(
      expect.arrayContaining(['framework', 'pathEcho']),
    );
    expect(nameSmells({ name: 'get_city_using_get', title: 'Get city', operationId: 'getCityUsingGET', method: 'get', path: '/cities/{id}' })).toContain('framework');
    expect(nameSmells({ name: 'delete_14', title: 'Remove a task', operationId: 'delete_14', method: 'delete', path: '/tasks/{taskId}' })).toContain('framework');
    expect(nameSmells({ name: 'api_transport_discord_id_patch', title: 'Update', operationId: 'api_transport-discord_id_patch', method: 'patch', path: '/api/transport-discord/{id}' })).toEqual(expect.arrayContaining(['framework', 'pathEcho']));
    expect(nameSmells({ name: 'games_read', title: 'Get a game', operationId: 'games_read', method: 'get', path: '/games/{id}' })).toContain('framework');
    // The other member holds the plain name on another path: the method settled it.
    const baskets = countSmells([
      { name: 'baskets_get', title: 'Get basket', method: 'get', path: '/api/baskets/{name}' },
      { name: 'baskets_get_get', title: 'Get basket', method: 'get', path: '/baskets/{name}' },
    ]);
    expect(baskets.by.methodCollision).toBe(1);
    // The same action served on GET and POST of one path (AWS query APIs): the method is all that differs.
    const twins = countSmells([
      { name: 'create_pool', title: 'Create a pool', method: 'post', path: '/#Action=CreatePool', operationId: 'POST_CreatePool' },
      { name: 'create_pool_get', title: 'Create a pool', method: 'get', path: '/#Action=CreatePool', operationId: 'GET_CreatePool' },
    ]);
    expect(twins.smelly).toBe(0);
  });

  it('leaves well-made names alone', () => {
    for (const t of [
      { name: 'repos_get', title: 'Get a repository', operationId: 'repos/get', method: 'get', path: '/repos/{owner}/{repo}' },
      { name: 'compute_firewalls_patch', title: 'Patch a firewall', operationId: 'compute.firewalls.patch', method: 'patch', path: '/projects/{project}/global/firewalls/{firewall}' },
      { name: 'get_pet_by_id', title: 'Find pet by ID', operationId: 'getPetById', method: 'get', path: '/pet/{petId}' },
      { name: 'customers_get', title: 'Retrieve a customer', operationId: 'GetCustomersCustomer', method: 'get', path: '/v1/customers/{customer}' },
      { name: 'analytics_audience_name_exists', title: 'Check whether an audience exists', operationId: 'Analytics_AudienceNameExists', method: 'head', path: '/apps/{app}/analytics/audiences/{audience_name}' },
    ]) {
      expect(nameSmells(t), t.name).toEqual([]);
    }
  });

  it('sees titles cut at an abbreviation, inside parentheses or on a dangling word, and noun-first titles', () => {
    for (const t of ['Search for data (ie', 'Accept, ship (accept, ship', 'Update source maps create or', 'Create author if not exists for', 'Update a snapshot copy to']) expect(isCutTitle(t), t).toBe(true);
    for (const t of ['Remove dependency an issue is blocked by', 'Search for data (i.e. projects)', 'Get time zone preferred by user currently signed in', 'Create or update a source map']) expect(isCutTitle(t), t).toBe(false);
    expect(isNounFirstTitle('Care team members list')).toBe(true);
    expect(isNounFirstTitle('List care team members')).toBe(false);
    expect(isNounFirstTitle('Toggle the status of an allow list')).toBe(false);
    expect(isNounFirstTitle('Domain Warn List')).toBe(false);
  });

  it('sees split acronyms: plural, a capital before a word, capitals run into a word', () => {
    expect(splitAcronyms('floating_i_ps_list', 'floatingIPs_list')).toEqual(['i_ps']);
    expect(splitAcronyms('user_update_o_auth2_application', 'userUpdateOAuth2Application')).toEqual(['o_auth2']);
    expect(splitAcronyms('action_pos_tquery_more', 'Action_POSTqueryMore')).toEqual(['pos_tquery']);
    expect(splitAcronyms('action_post_query_more', 'Action_POSTqueryMore')).toEqual([]);
    expect(splitAcronyms('delete_a_call_queue', 'deleteACallQueue')).toEqual([]);
  });
});

describe('name smells on the regression set of framework-made specs', () => {
  let rows: SmellRow[];
  beforeAll(async () => {
    rows = await measureFrameworkSet();
  }, 300_000);

  it('holds FastAPI, Springfox, numbered duplicates, API Platform, Django REST and id-less specs, some held out', () => {
    const kinds = new Set(FRAMEWORK_SET.map((s) => s.framework.split(' ')[0]));
    for (const k of ['FastAPI', 'Springfox', 'springdoc', 'API', 'Django', 'no']) expect(kinds.has(k), k).toBe(true);
    expect(FRAMEWORK_SET.filter((s) => s.heldOut).length).toBeGreaterThanOrEqual(10);
    expect(rows.every((r) => r.tools > 0)).toBe(true);
  });

  it(`every spec: at most ${SMELL_TARGET * 100}% of tools with a name smell`, () => {
    const misses = rows.filter((r) => r.smelly > r.tools * SMELL_TARGET).map((r) => `${r.label}: ${r.smelly} of ${r.tools} (${r.examples.map((e) => e.name).join(', ')})`);
    expect(misses).toEqual([]);
  });

  it('docs/naming.md shows the table as measured', () => {
    const doc = readFileSync(new URL('../../docs/naming.md', import.meta.url), 'utf8');
    expect(docsSmellTable(doc), 'regenerate with: node scripts/catalog/name-framework-set.ts --docs').toBe(smellTable(rows));
  });
});
