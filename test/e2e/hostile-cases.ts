// What a hostile tenant sends in test/e2e/hostile-tenant.test.ts, by the resource it goes after (issue 36). Each case
// is one or more POSTs, some of them JSON-RPC batches or bursts of parallel requests; none may crash the runtime,
// fail another client's request or hold it for long. Wider than the issue's own cases on purpose: each class has
// variants (two-byte strings, typed arrays, other iterables, other tools, other shapes of batch).

export interface HostileCase {
  name: string;
  /** Where it is sent: the code-mode endpoint, bare /mcp, discovery, or any URL of them (query included). */
  path: string;
  /** One request body per POST; the POSTs of a case are sent at once. */
  bodies: unknown[];
  /** Headers besides the client's own (which they replace). */
  headers?: Record<string, string>;
  /** The client gives up on each POST after this long (a client that goes away while its calls wait). */
  abortAfterMs?: number;
}

let id = 0;
const call = (name: string, args: unknown) => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
const execute = (code: string) => call('execute', { code });
const program = (name: string, code: string): HostileCase => ({ name, path: '/mcp/code', bodies: [execute(code)] });
const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Shared rows: 75 M elements for a few hundred KB of memory. */
const SHARED = 'Array(15000).fill(Array(5000).fill(0))';
const FAN_OUT = (size: string) => `const s = ${size};\nawait Promise.all(Array.from({ length: 50 }, (_, i) => api.repos_get({ owner: "o" + i, repo: "r", junk: s }).catch(() => 0)));\nreturn 1;`;
const CPU_HOG = 'let x = 0;\nfor (;;) { x = (x * 31 + 7) % 1000003; }';

export const HOSTILE_CASES: HostileCase[] = [
  // The host's memory through api arguments.
  program('50 parallel calls sharing a 4 MB argument (issue 36)', FAN_OUT('"a".repeat(4e6)')),
  program('50 parallel calls sharing a two-byte 3 MB argument', FAN_OUT('"字".repeat(3e6)')),
  program('50 parallel calls just under the per-call limit', FAN_OUT('"a".repeat(1048000)')),
  program('a getter that measures small and sends big', 'const big = "b".repeat(8e6);\nlet n = 0;\nconst args = { owner: "o", repo: "r", get junk() { return n++ ? big : "x"; } };\nawait Promise.all(Array.from({ length: 30 }, () => api.repos_get(args).catch(() => 0)));\nreturn n;'),
  program('arguments of a million numbers', 'const ids = Array.from({ length: 1e6 }, (_, i) => i);\nreturn await Promise.all(Array.from({ length: 20 }, () => api.repos_get({ owner: "o", repo: "r", ids }).catch((e) => e.name)));'),
  // Built-ins that allocate from a small input.
  program('Object.entries of 4 M characters (issue 36)', 'return Object.entries("a".repeat(4e6)).length'),
  program('Object.keys of 6 M characters (issue 36)', 'return Object.keys("a".repeat(6e6)).length'),
  program('a spread of 8 M characters of segments (issue 36)', 'return [...new Intl.Segmenter().segment("a".repeat(8e6))].length'),
  program('Object.values of a two-byte string', 'return Object.values("字".repeat(7e6)).length'),
  program('Object.keys of a 50 M-byte typed array', 'return Object.keys(new Uint8Array(5e7)).length'),
  program('for-in over 8 M characters', 'let n = 0;\nfor (const k in "a".repeat(8e6)) n++;\nreturn n;'),
  program('object spread and Object.assign of a string', 'const s = "a".repeat(8e6);\nreturn Object.keys({ ...s }).length + Object.keys(Object.assign({}, s)).length;'),
  program('matchAll spread over 4 M matches', 'return [..."a".repeat(4e6).matchAll(/a/g)].length'),
  program('JSON.parse of 4 M empty objects', 'return JSON.parse("[" + "{},".repeat(4e6) + "{}]").length'),
  program('join of 60 references to a 4 MB string', 'return Array(60).fill("x".repeat(4e6)).join("").length'),
  program('flat and flatMap of shared rows', `const rows = ${SHARED};\nconst a = rows.flat().length;\nreturn a + rows.flatMap((r) => r).length;`),
  program('iterables of unknown size: toArray, Set, Map entries', 'const m = new Map(Array.from({ length: 4e5 }, (_, i) => [i, i]));\nconst k = [];\nfor (;;) { k.push([...m.entries()]); k.push(new Set(new Intl.Segmenter().segment("ab".repeat(1e6)))); }'),
  program('five million small objects pushed one a step', 'const out = [];\nfor (let i = 0; i < 4.9e6; i++) out.push({ i, s: "x" + i });\nreturn out.length;'),
  program('a Map, a Set and an object grown one entry a step', 'const m = new Map();\nconst s = new Set();\nconst o = {};\nfor (let i = 0; i < 4.9e6; i++) { m.set(i, [i]); s.add(i); o[i * 2] = i; }\nreturn m.size;'),
  program('promises, errors, generators and formatters made one a step', 'function* g() {}\nconst k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(Promise.resolve(i), new Error(), g(), Symbol(), Object.create(null), new RegExp("a" + (i % 1000)), i % 100 ? 0 : new Intl.NumberFormat("en"));\nreturn k.length;'),
  program('caught errors kept one a step', 'const k = [];\nfor (let i = 0; i < 4.9e6; i++) { try { null.x; } catch (e) { k.push(e); } }\nreturn k.length;'),
  program('a native callback that boxes every element', 'return Array.from({ length: 3e6 }, (_, i) => i).map(Object).length;'),
  // Serialisation of big shared structures.
  program('a result of 75 M shared elements (issue 36)', `return ${SHARED};`),
  program('console.log of 75 M shared elements', `console.log(${SHARED});\nconsole.error({ rows: ${SHARED} });\nreturn 1;`),
  program('JSON.stringify of shared rows in the program', `const s = JSON.stringify(${SHARED});\nreturn s.length;`),
  program('a thrown value of 75 M shared elements', `throw ${SHARED};`),
  program('a toJSON that returns shared rows', `return { toJSON() { return ${SHARED}; } };`),
  program('a result nested 200,000 deep', 'let a = [];\nfor (let i = 0; i < 200000; i++) a = [a];\nreturn a;'),
  // CPU.
  program('an endless loop', CPU_HOG),
  program('a catastrophic regex in a loop', 'let n = 0;\nfor (;;) if (/^(a+)+$/.test("a".repeat(30) + "b")) n++;'),
  program('sorting 2 M numbers over and over', 'const a = Array.from({ length: 2e6 }, (_, i) => (i * 7919) % 1000);\nfor (;;) a.sort();'),
  program('a program of 100,000 characters nested 25,000 deep', `return ${'['.repeat(25_000)}${']'.repeat(25_000)}.length;`),
  program('a program of 100,000 characters of statements', Array.from({ length: 9_000 }, (_, i) => `x${i % 100}=${i};`).join('').slice(0, 99_000) + '\nreturn 1;'),
  // Batches and bursts.
  { name: 'a batch of 100 tools/call', path: '/mcp', bodies: [times(100, (i) => call('repos_get', { owner: `batch-${i}`, repo: 'r' }))] },
  { name: 'a batch of 30 executes of 50 api calls each (issue 36)', path: '/mcp/code', bodies: [times(30, () => execute('return (await Promise.all(Array.from({ length: 50 }, (_, i) => api.repos_get({ owner: "o" + i, repo: "r" })))).length;'))] },
  { name: 'a batch of 20 endless loops', path: '/mcp/code', bodies: [times(20, () => execute(CPU_HOG))] },
  { name: 'a batch of 10 fan-outs of a 4 MB argument', path: '/mcp/code', bodies: [times(10, () => execute(FAN_OUT('"a".repeat(4e6)')))] },
  { name: '20 parallel requests of endless loops', path: '/mcp/code', bodies: times(20, () => execute(CPU_HOG)) },
  { name: '20 parallel requests of memory bombs', path: '/mcp/code', bodies: times(20, (i) => execute(i % 2 ? 'return Object.entries("a".repeat(4e6)).length' : `return ${SHARED};`)) },
  // The protocol itself.
  { name: 'a 3.9 MB owner in tools/call', path: '/mcp', bodies: [call('repos_get', { owner: 'a'.repeat(3_900_000), repo: 'r' })] },
  { name: 'a body nested 1,000,000 deep', path: '/mcp', bodies: ['['.repeat(1_000_000) + ']'.repeat(1_000_000)] },
];
