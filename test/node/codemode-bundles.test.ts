// The code-mode bundles (src/codemode/generated/*.txt: the compiler and the RegExp engine, loaded into Dynamic
// Workers as module text) are generated: a fresh build must reproduce the committed files byte for byte.
import { describe, expect, it } from 'vitest';
import { staleBundles } from '../../scripts/build-codemode.ts';

describe('code-mode bundles', () => {
  it('are up to date with their sources (npm run build:codemode)', async () => {
    expect(await staleBundles()).toEqual([]);
  }, 60_000);
});
