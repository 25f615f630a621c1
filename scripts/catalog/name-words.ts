// The fixed word tables behind name shortening (docs/naming.md): filler words, the abbreviation table and the
// frozen word-frequency rank. Fixed in code, so a name depends only on its own operation.
import { readFileSync } from 'node:fs';

/** Step 1: words that carry no meaning in a tool name. */
export const FILLER = new Set(['for', 'a', 'an', 'the', 'of', 'by', 'with']);

/** Step 3 drops these first: prepositions and conjunctions, the most frequent words of any API's names. */
export const GLUE = new Set(['to', 'from', 'in', 'on', 'at', 'and', 'or', 'into', 'per', 'via', 'as']);

/** Verbs of operation names: the first one after the toolset words is the verb a name always keeps. */
export const VERBS = new Set(
  (
    'get list create update delete remove add set enable disable check put post patch read replace watch cancel approve accept ' +
    'decline review restore revoke rerun retry start stop run download upload search find fetch move transfer merge sync ' +
    'rename archive unarchive lock unlock follow unfollow star unstar block unblock suspend unsuspend verify generate export ' +
    'import convert send redeem reopen close mark dismiss request submit publish unpublish attach detach assign unassign ' +
    'invite subscribe unsubscribe pin unpin install uninstall resolve test validate query count upsert reset rotate ' +
    'apply deploy trigger pause resume refund capture'
  ).split(' '),
);

/** Step 2: one small table of obvious abbreviations (plurals follow the singular; two-word phrases joined by _). */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  administrator: 'admin',
  administrators: 'admins',
  application: 'app',
  applications: 'apps',
  authenticated: 'auth',
  certificate: 'cert',
  certificates: 'certs',
  configuration: 'config',
  configurations: 'configs',
  description: 'desc',
  enterprise: 'ent',
  enterprises: 'ents',
  environment: 'env',
  environments: 'envs',
  identifier: 'id',
  identifiers: 'ids',
  information: 'info',
  namespace: 'ns',
  namespaced: 'ns',
  organization: 'org',
  organizations: 'orgs',
  parameter: 'param',
  parameters: 'params',
  permission: 'perm',
  permissions: 'perms',
  pull_request: 'pr',
  pull_requests: 'prs',
  repositories: 'repos',
  repository: 'repo',
  specification: 'spec',
  statistics: 'stats',
};

/** Step 3: rank of a word in the frozen frequency table (0 = most frequent); unlisted words rank last. */
export function wordRank(word: string): number {
  rank ??= new Map(
    readFileSync(new URL('./word-rank.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .flatMap((l) => l.split(' '))
      .map((w, i) => [w, i] as const),
  );
  return rank.get(word) ?? Number.POSITIVE_INFINITY;
}

let rank: Map<string, number> | undefined;
