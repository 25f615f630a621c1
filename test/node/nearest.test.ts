import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearestNames } from '../../src/lib/nearest.ts';

describe('did-you-mean suggestions', () => {
  const toolsets = ['actions', 'gists', 'git', 'gitignore', 'private_registries', 'repos', 'repos_core', 'issues_core'];

  it('edit distance counts inserts, deletes and substitutions', () => {
    expect(editDistance('gist', 'gists')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('offers only the closest names, and nothing for a name unlike every valid one', () => {
    expect(nearestNames('gist', toolsets)).toEqual(['gists', 'git']);
    expect(nearestNames('repo_core', toolsets)).toEqual(['repos_core']);
    expect(nearestNames('REPOS_CORE', toolsets)).toEqual(['repos_core']);
    expect(nearestNames('toString', toolsets)).toEqual([]);
    expect(nearestNames('__proto__', toolsets)).toEqual([]);
  });

  it('falls back to names containing what was typed', () => {
    expect(nearestNames('issue', toolsets)).toEqual(['issues_core']);
  });

  it('reads as a sentence', () => {
    expect(didYouMean('--reprot', ['--report', '--quiet'])).toBe(' Did you mean --report?');
    expect(didYouMean('gist', toolsets)).toBe(' Did you mean gists or git?');
    expect(didYouMean('zzzz', toolsets)).toBe('');
  });

  it('guesses nothing for a name too long to be a typo, without its quadratic work', () => {
    const long = 'repos_core'.repeat(20);
    for (let i = 0; i < 1000; i++) expect(nearestNames(long, [...toolsets, long.slice(1)])).toEqual([]);
  });
});
