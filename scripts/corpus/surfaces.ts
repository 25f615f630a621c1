// Every listing a built catalogue can be served as, checked against the client rules (scripts/sweep/listing-rules.ts):
// each client profile (its dialect: VS Code's draft-07, OpenAI's strict form, Gemini's inlined schemas) in each
// endpoint mode (typed tools, the hybrid list a client over its tool budget gets, discovery, code mode). These are
// the Worker's own surfaces (src/protocol/mcp-server.ts `surfaceOf`), run in Node as the stdio server runs them, so
// the whole draw is checked without a wrangler dev per spec; the sweep checks the Worker's listing itself. Type-checked
// with the Worker's types (tsconfig.json), so it is handed the files rather than reading them.
import type { Caller } from '../../src/auth/bearer.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { readConfig } from '../../src/config.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { surfaceOf } from '../../src/protocol/mcp-server.ts';
import type { RequestScope } from '../../src/tools/scope.ts';
import { listingProblems } from '../sweep/listing-rules.ts';

const MODES: ReadonlyArray<RequestScope['mode']> = ['tools', 'hybrid', 'discover', 'code'];

/** Rule problems of every (profile, mode) listing of a catalog.txt, each prefixed `[profile/mode]`. */
export async function surfaceProblems(catalogueText: string, readShard: (file: string) => Promise<string>): Promise<string[]> {
  const loaded = loadCatalogue(catalogueText);
  const slice = sliceOf(loaded, { toolsets: ['all'] });
  if (loaded.sharded) {
    loaded.useShards(readShard);
    await loaded.load(slice.tools);
  }
  const config = readConfig({ UPSTREAM_URL: 'http://127.0.0.1:9' }, loaded.catalogue.defaultUpstream);
  const caller: Caller = { id: 'corpus', scope: {}, upstream: {} };
  const problems: string[] = [];
  for (const id of Object.keys(PROFILES) as ProfileId[]) {
    for (const mode of MODES) {
      const scope: RequestScope = { catalogue: loaded, config, caller, slice, profile: PROFILES[id], mode };
      try {
        problems.push(...listingProblems(surfaceOf(scope).tools).map((p) => `[${id}/${mode}] ${p}`));
      } catch (e) {
        problems.push(`[${id}/${mode}] listing failed: ${(e as Error).message.slice(0, 300)}`);
      }
    }
  }
  return problems;
}
