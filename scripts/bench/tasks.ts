// Three realistic GitHub tasks for the modes section, each written once as typed tool calls turn by turn (calls in
// one turn depend only on earlier turns, so a model can send them in parallel) and once as a code-mode program.
// The bench upstream's small GitHub (scripts/lib/github-fake.ts) answers every call; the three modes must agree.
// Also the accounting: what each mode's exact request sequence costs a model in round trips and tokens.

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** Parsed results so far: results[turn][call]. */
type Results = unknown[][];

export interface Task {
  id: string;
  title: string;
  /** What a model searches for in discovery (search_tools) and code mode (search). */
  query: string;
  /** The operations the task needs, in order of first use (discovery describes each). */
  tools: string[];
  turns: Array<(results: Results) => Call[]>;
  answer(results: Results): unknown;
  program: string;
}

const OWNER = 'octo-org';
const REPO = 'hello-world';
const USER = 'octocat';
const repo = { owner: OWNER, repo: REPO };
const list = (x: unknown) => x as Array<Record<string, unknown>>;

export const TASKS: Task[] = [
  {
    id: 'bug-comments',
    title: 'Comments per open bug',
    query: 'list issues with a label and their comments',
    tools: ['issues_list_for_repo', 'issues_list_comments'],
    turns: [
      () => [{ name: 'issues_list_for_repo', args: { ...repo, labels: 'bug', state: 'open' } }],
      (r) => list(r[0]![0]).map((i) => ({ name: 'issues_list_comments', args: { ...repo, issue_number: i.number } })),
    ],
    answer: (r) => Object.fromEntries(list(r[0]![0]).map((i, k) => [String(i.number), list(r[1]![k]).length])),
    program: [
      `const issues = await api.issues_list_for_repo({ owner: "${OWNER}", repo: "${REPO}", labels: "bug", state: "open" });`,
      'const counts = {};',
      'for (const issue of issues) {',
      `  counts[issue.number] = (await api.issues_list_comments({ owner: "${OWNER}", repo: "${REPO}", issue_number: issue.number })).length;`,
      '}',
      'return counts;',
    ].join('\n'),
  },
  {
    id: 'unapproved-pulls',
    title: 'Open pull requests without an approval',
    query: 'list open pull requests and their reviews',
    tools: ['pulls_list', 'pulls_list_reviews'],
    turns: [
      () => [{ name: 'pulls_list', args: { ...repo, state: 'open' } }],
      (r) => list(r[0]![0]).map((p) => ({ name: 'pulls_list_reviews', args: { ...repo, pull_number: p.number } })),
    ],
    answer: (r) =>
      list(r[0]![0])
        .filter((_, k) => !list(r[1]![k]).some((review) => review.state === 'APPROVED'))
        .map((p) => ({ number: p.number, title: p.title })),
    program: [
      `const pulls = await api.pulls_list({ owner: "${OWNER}", repo: "${REPO}", state: "open" });`,
      'const waiting = [];',
      'for (const p of pulls) {',
      `  const reviews = await api.pulls_list_reviews({ owner: "${OWNER}", repo: "${REPO}", pull_number: p.number });`,
      '  if (!reviews.some((r) => r.state === "APPROVED")) waiting.push({ number: p.number, title: p.title });',
      '}',
      'return waiting;',
    ].join('\n'),
  },
  {
    id: 'top-repos',
    title: "A user's three most-starred repositories",
    query: 'get a user and their repositories',
    tools: ['users_get_by_username', 'repos_list_for_user'],
    // Neither call needs the other's result: one turn.
    turns: [() => [{ name: 'users_get_by_username', args: { username: USER } }, { name: 'repos_list_for_user', args: { username: USER, per_page: 100 } }]],
    answer: (r) => ({
      name: (r[0]![0] as Record<string, unknown>).name,
      top: list(r[0]![1])
        .sort((a, b) => Number(b.stargazers_count) - Number(a.stargazers_count))
        .slice(0, 3)
        .map((x) => ({ name: x.name, stars: x.stargazers_count, language: x.language })),
    }),
    program: [
      `const [user, repos] = await Promise.all([api.users_get_by_username({ username: "${USER}" }), api.repos_list_for_user({ username: "${USER}", per_page: 100 })]);`,
      'const top = repos.sort((a, b) => b.stargazers_count - a.stargazers_count).slice(0, 3);',
      'return { name: user.name, top: top.map((r) => ({ name: r.name, stars: r.stargazers_count, language: r.language })) };',
    ].join('\n'),
  },
];

export type Mode = 'typed tools' | 'discovery' | 'code mode';
export const MODES: Mode[] = ['typed tools', 'discovery', 'code mode'];

/** One model turn: the calls it sends (in parallel), each with the tokens the model writes and reads. */
export interface Turn {
  calls: Array<{ written: number; result: number }>;
}

export interface ModeCost {
  /** Model turns that call tools (a round trip each). */
  roundTrips: number;
  toolCalls: number;
  definitions: number;
  /** Tokens of every tool result the model reads. */
  results: number;
  /** Tokens of every call the model writes (name and arguments; the program in code mode). */
  written: number;
  total: number;
  /** Input tokens over the whole task: each turn, and the final answer, re-reads definitions and all before it. */
  input: number;
}

export function costOf(definitions: number, turns: Turn[]): ModeCost {
  let written = 0;
  let results = 0;
  let input = 0;
  let context = definitions;
  for (const turn of turns) {
    input += context;
    for (const c of turn.calls) {
      written += c.written;
      results += c.result;
      context += c.written + c.result;
    }
  }
  input += context; // the turn that answers
  return { roundTrips: turns.length, toolCalls: turns.reduce((n, t) => n + t.calls.length, 0), definitions, results, written, total: definitions + results + written, input };
}
