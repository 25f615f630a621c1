// Names and shapes the corpus check (docs/sweep.md, "Corpus check", seeds 20261206 and 20261207) found in real
// specs, on small hand-written ones:
//   - dotted operationIds led by the API's own long name (Google's discovery ids): shortening kept the API's name
//     and dropped the resource, so names were `<api>_delete`, `<api>_create_post` or hashed;
//   - operationIds that write out the method and the path before the handler's name (HubSpot's
//     `get-/files/v3/files/{fileId}_getById`): the name echoed the path, version and parameter included;
//   - paths that differ by a format extension after a parameter (worldtimeapi's /ip/{ipv4} and /ip/{ipv4}.txt):
//     the collision was settled by the method (`ip_get_get`);
//   - a path word that is also a verb read as the action though the summary says it as a thing (OnSched's
//     POST /calendars/{id}/block "Create Calendar Block"): two operations became "block", settled by the method;
//   - name smells counted where the author's words only looked like a path echo (`IdProvider`, "by treaty id",
//     a segment that says "id" itself);
//   - the sweep's mock sent a string for a map declared by `additionalProperties` alone, which the generator reads
//     as an object, so the output schema refused the mock (not a live API).
import { describe, expect, it } from 'vitest';
import { specStyle } from '../../scripts/catalog/name-derive.ts';
import { countSmells, nameSmells } from '../../scripts/catalog/name-smells.ts';
import { isHashedName, nameTools, type NameCandidate } from '../../scripts/catalog/naming.ts';
import { SchemaConverter } from '../../scripts/catalog/schema-converter.ts';
import { generateValue } from '../../scripts/sweep/args.ts';
import { validate } from '../../src/catalogue/validator.ts';

const API = 'examplecatalogueproducerapi';
const op = (method: string, path: string, operationId: string, summary?: string): NameCandidate => ({ key: `${method} ${path}`, method, path, operationId, tags: [operationId.split('.')[1] ?? ''], ...(summary ? { summary } : {}) });

const GOOGLE_STYLE: NameCandidate[] = [
  op('GET', '/v1/catalogs', `${API}.catalogs.list`),
  op('POST', '/v1/catalogs', `${API}.catalogs.create`),
  op('GET', '/v1/operations', `${API}.operations.list`),
  op('POST', '/v1/{name}:cancel', `${API}.operations.cancel`),
  op('DELETE', '/v1/{name}', `${API}.catalogs.products.versions.delete`),
  op('PATCH', '/v1/{name}', `${API}.catalogs.products.versions.patch`),
  op('POST', '/v1/{parent}/associations', `${API}.catalogs.associations.create`),
  op('POST', '/v1/{parent}/products', `${API}.catalogs.products.create`),
  op('POST', '/v1/{parent}/versions', `${API}.catalogs.products.versions.create`),
  op('GET', '/v1/{parent}/featureViews', `${API}.projects.locations.featureOnlineStores.featureViews.list`),
];

describe("dotted operationIds led by the API's name", () => {
  const names = nameTools(GOOGLE_STYLE, 41).names;
  const name = (key: string) => names.get(key)!;

  it('is read as the API, once every operationId starts with it', () => {
    expect(specStyle(GOOGLE_STYLE).api).toEqual(['examplecatalogueproducerapi']);
    expect(specStyle([...GOOGLE_STYLE, op('GET', '/v1/things', 'other.things.list')]).api).toBeUndefined();
    // Two segments only: the first is the resource, not an API.
    expect(specStyle([op('GET', '/pets', 'pets.list'), op('POST', '/pets', 'pets.create')]).api).toBeUndefined();
  });

  it('goes first when a name is too long, so the resource and the action stay; a name that fits keeps it', () => {
    expect(name('GET /v1/catalogs')).toBe(`${API}_catalogs_list`);
    expect(name('DELETE /v1/{name}')).toBe('catalogs_products_versions_delete');
    expect(name('GET /v1/operations')).toBe('operations_list');
    expect(name('POST /v1/{parent}/associations')).toBe('catalogs_associations_create');
    expect(name('POST /v1/{parent}/versions')).toBe('catalogs_products_versions_create');
    // The container words after it lead by no right: the resource is what is left.
    expect(name('GET /v1/{parent}/featureViews')).not.toMatch(/^(projects|locations)_|feature_feature/);
    expect(name('GET /v1/{parent}/featureViews')).toMatch(/feature_views_list$/);
    const all = [...names.values()];
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter(isHashedName)).toEqual([]);
    // No collision was settled by the method, and no name is the API's name and a verb alone.
    expect(all.filter((n) => /_(list|create|delete|patch|cancel)_(get|post|put|patch|delete)$/.test(n) || new RegExp(`^${API}_[a-z]+$`).test(n))).toEqual([]);
  });
});

describe('operationIds that write out the method and the path before the handler', () => {
  const HUBSPOT_STYLE: NameCandidate[] = [
    { key: 'GET /files/v3/files/{fileId}', method: 'GET', path: '/files/v3/files/{fileId}', operationId: 'get-/files/v3/files/{fileId}_getById', summary: 'Get file' },
    { key: 'DELETE /files/v3/files/{fileId}', method: 'DELETE', path: '/files/v3/files/{fileId}', operationId: 'delete-/files/v3/files/{fileId}_archive', summary: 'Delete file' },
    { key: 'GET /files/v3/files', method: 'GET', path: '/files/v3/files', operationId: 'get-/files/v3/files_getPage', summary: 'List files' },
    { key: 'POST /files/v3/files', method: 'POST', path: '/files/v3/files', operationId: 'post-/files/v3/files_create', summary: 'Create a file' },
    { key: 'GET /webhooks/v3/{appId}/settings', method: 'GET', path: '/webhooks/v3/{appId}/settings', operationId: 'get-/webhooks/v3/{appId}/settings_getAll', summary: 'List webhook settings' },
  ];
  const names = nameTools(HUBSPOT_STYLE, 41).names;

  it('are named from the path and the action, with no method, version or parameter echoed', () => {
    const all = [...names.values()];
    expect(new Set(all).size).toBe(all.length);
    for (const n of all) expect(n).not.toMatch(/(^|_)(v3|id|app|get_by|get_page|get_all)(_|$)|^(get|post|delete)_files/);
    expect(names.get('GET /files/v3/files')).toMatch(/^files?_list$/);
    expect(names.get('DELETE /files/v3/files/{fileId}')).toMatch(/^files?_delete$/);
    expect(names.get('GET /webhooks/v3/{appId}/settings')).toMatch(/setting/);
    const smells = countSmells(HUBSPOT_STYLE.map((c) => ({ name: names.get(c.key)!, title: c.summary!, operationId: c.operationId!, method: c.method, path: c.path })));
    expect(smells.smelly).toBe(0);
  });

  it("after a framework's word, with the method after the handler (setlist.fm's resource__1.0_artist__mbid__getArtist_GET)", () => {
    const c = (path: string, operationId: string, summary: string): NameCandidate => ({ key: `GET ${path}`, method: 'GET', path, operationId, summary });
    const names = nameTools(
      [
        c('/1.0/artist/{mbid}', 'resource__1.0_artist__mbid__getArtist_GET', 'Get an artist for a given Musicbrainz MBID'),
        c('/1.0/search/countries', 'resource__1.0_search_countries_getCountries_GET', 'List all supported countries'),
        c('/1.0/user/{userId}/attended', 'resource__1.0_user__userId__attended_getUserAttendedSetlists_GET', 'List setlists of concerts attended by a user'),
      ],
      41,
    ).names;
    for (const n of names.values()) expect(n).not.toMatch(/^resource_|_1_0_|_get$(?<=_get_get$)/);
    expect(names.get('GET /1.0/artist/{mbid}')).toBe('artist_get');
  });

  it("drop a leading 'api' that only says the path's own /api/ (ASP.NET's Api_GetUser), and keep one the path says again", () => {
    const c = (path: string, operationId: string, summary: string): NameCandidate => ({ key: `GET ${path}`, method: 'GET', path, operationId, summary });
    const names = nameTools([c('/api/v2.1/companies/{companyId}/users', 'Api_GetUsers', 'Get all the users'), c('/api/api-keys', 'Api_ListApiKeys', 'List API keys')], 41).names;
    expect(names.get('GET /api/v2.1/companies/{companyId}/users')).toBe('get_users');
    expect(names.get('GET /api/api-keys')).toBe('api_list_api_keys');
  });

  it('leave an id with the path only inside it alone (AWS S3: PutBucketPolicy on /{Bucket}#policy)', () => {
    const s3 = nameTools([{ key: 'PUT /{Bucket}#policy', method: 'PUT', path: '/{Bucket}#policy', operationId: 'PutBucketPolicy' }], 41).names;
    expect(s3.get('PUT /{Bucket}#policy')).toMatch(/bucket_policy/);
  });
});

describe('paths that differ by a format extension after a parameter', () => {
  it('are told apart by the extension and the parameter, not by the method', () => {
    const c = (path: string): NameCandidate => ({ key: `GET ${path}`, method: 'GET', path, summary: 'Request the current time based on the ip of the request' });
    const names = nameTools([c('/ip'), c('/ip.txt'), c('/ip/{ipv4}'), c('/ip/{ipv4}.txt')], 41).names;
    const all = [...names.values()];
    expect(new Set(all).size).toBe(4);
    expect(all.filter((n) => /_get_get$/.test(n))).toEqual([]);
    expect(names.get('GET /ip/{ipv4}.txt')).toBe('ip_get_by_ipv4_txt');
  });
});

describe('a path word the summary says as a thing', () => {
  const c = (method: string, path: string, summary: string): NameCandidate => ({ key: `${method} ${path}`, method, path, summary });
  it('names the resource, not the action; said as the verb, it is the action', () => {
    const names = nameTools(
      [
        c('POST', '/setup/v1/calendars/{id}/block', 'Create Calendar Block'),
        c('PUT', '/setup/v1/calendars/block/{id}', 'Update Calendar Block'),
        c('DELETE', '/setup/v1/calendars/block/{id}', 'Delete Calendar Block'),
        c('DELETE', '/setup/v1/calendars/{id}', 'Delete Calendar'),
        c('POST', '/users/{id}/block', 'Block a user'),
      ],
      41,
    ).names;
    expect(names.get('POST /setup/v1/calendars/{id}/block')).toBe('calendar_block_create');
    expect(names.get('PUT /setup/v1/calendars/block/{id}')).toMatch(/^calendars?_block_update$/);
    expect(names.get('DELETE /setup/v1/calendars/block/{id}')).toMatch(/^calendars?_block_delete$/);
    expect(names.get('POST /users/{id}/block')).toMatch(/^users?_block$/);
    expect([...names.values()].filter((n) => /_(put|post|delete)$/.test(n) && !/_delete$/.test(n))).toEqual([]);
  });
});

describe('name smells: the author\'s words are no path echo', () => {
  it('an "id" of another word, a "by … id" phrase, a segment that says "id" itself', () => {
    expect(nameSmells({ name: 'delete_id_provider_auth_domain', title: 'Delete an IdP authentication domain', operationId: 'deleteIdProviderAuthDomain', method: 'delete', path: '/idp_auth_domain/{id}' })).toEqual([]);
    expect(nameSmells({ name: 'get_business_items_by_treaty_id', title: 'Get business items of a treaty', operationId: 'GetBusinessItemsByTreatyId', method: 'get', path: '/api/Treaty/{id}/BusinessItems' })).toEqual([]);
    expect(nameSmells({ name: 'check_submitted_id_documents', title: 'Check submitted documents', operationId: 'CheckSubmittedIdDocuments', method: 'get', path: '/api/registrations/{id}/check-submitted-id-documents' })).toEqual([]);
    expect(nameSmells({ name: 'get_aws_account_id', title: 'Get the AWS account ID', operationId: 'getAwsAccountId', method: 'get', path: '/archive/aws/s3/{id}/account_id' })).toEqual([]);
  });

  it('still sees a bare id said after the segment it follows', () => {
    expect(nameSmells({ name: 'get_version_incidents_id_format', title: 'Get an incident', operationId: 'GET--version-incidents--id---format-', method: 'get', path: '/v2/incidents/{id}' })).toContain('pathEcho');
  });
});

describe("the sweep's mock and a map declared by additionalProperties alone", () => {
  it('sends an object, which the generated output schema accepts', () => {
    const spec = { openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { Resource: { properties: { tags: { additionalProperties: { type: 'string' }, description: 'Resource tags' } } } } } };
    const tags = spec.components.schemas.Resource.properties.tags;
    for (const variant of [0, 1, 2]) {
      const value = generateValue(tags, spec as never, variant);
      expect(value).toBeTypeOf('object');
      const out = new SchemaConverter(spec as never, () => {}).convert(spec.components.schemas.Resource as never, 'output', { depth: 6, descMax: 120 }, 'x');
      expect(validate(out as never, { tags: value }).errors).toEqual([]);
    }
  });
});
