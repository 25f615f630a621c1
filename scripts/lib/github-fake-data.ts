// The fixed data of the small GitHub in github-fake.ts, apart from its Node code so workerd tests can import the
// expected answers.

/** Issue number → [title, labels, state, comment count]. Open bugs: 1, 3 and 6. */
export const FAKE_ISSUES: ReadonlyArray<readonly [number, string, readonly string[], 'open' | 'closed', number]> = [
  [1, 'Crash on start', ['bug'], 'open', 3],
  [2, 'Add dark mode', ['enhancement'], 'open', 1],
  [3, 'Wrong total in report', ['bug', 'help wanted'], 'open', 0],
  [4, 'Old crash', ['bug'], 'closed', 2],
  [5, 'Document the CLI', ['documentation'], 'open', 4],
  [6, 'Timeout on large repos', ['bug'], 'open', 2],
];
/** Pull request number → review states. Open pull requests without an approval: 11 and 12. */
export const FAKE_PULLS: ReadonlyArray<readonly [number, string, readonly string[]]> = [
  [10, 'Fix crash on start', ['APPROVED']],
  [11, 'Dark mode', []],
  [12, 'Faster report', ['CHANGES_REQUESTED', 'COMMENTED']],
  [13, 'CLI docs', ['COMMENTED', 'APPROVED']],
];
/** Repository name → [stars, language] of the user's repositories. */
export const FAKE_REPOS: ReadonlyArray<readonly [string, number, string | null]> = [
  ['hello-world', 1520, 'JavaScript'],
  ['spoon-knife', 12040, 'HTML'],
  ['linguist', 320, 'Ruby'],
  ['octocat.github.io', 75, null],
  ['git-consortium', 980, null],
  ['boysenberry-repo-1', 12, 'Go'],
  ['test-repo1', 3, 'Python'],
  ['hello-worId', 4400, 'TypeScript'],
];
