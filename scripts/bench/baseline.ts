// Another commit's tree for side-by-side rows (`npm run bench -- --baseline <ref>`): `git archive` of the ref in a
// temp dir, sharing this checkout's node_modules, so its bench worker (scripts/bench/worker.ts over its own src/) can
// be bundled and served beside this tree's, over the same catalogue, and measured in the same interleaved rounds.
// A change's cost is then a ratio taken in one run on one machine, never against a remembered figure.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../lib/proc.ts';

export interface BaselineTree {
  /** The ref as given, and the commit it names (short). */
  ref: string;
  commit: string;
  root: string;
  cleanup(): Promise<void>;
}

export async function baselineTree(ref: string): Promise<BaselineTree> {
  const commit = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const root = await mkdtemp(join(tmpdir(), 'mcp-bench-baseline-'));
  await new Promise<void>((resolve, reject) => {
    const git = spawn('git', ['-C', repoRoot, 'archive', '--format=tar', commit], { stdio: ['ignore', 'pipe', 'inherit'] });
    const tar = spawn('tar', ['-x', '-C', root], { stdio: ['pipe', 'inherit', 'inherit'] });
    git.stdout.pipe(tar.stdin);
    let left = 2;
    const done = (name: string) => (code: number | null) => {
      if (code !== 0) reject(new Error(`${name} exited ${code} extracting ${ref}`));
      else if (--left === 0) resolve();
    };
    git.on('close', done('git archive'));
    tar.on('close', done('tar'));
  });
  if (!existsSync(join(root, 'scripts/bench/worker.ts'))) throw new Error(`--baseline ${ref}: that commit has no scripts/bench/worker.ts`);
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { ref, commit, root, cleanup: () => rm(root, { recursive: true, force: true }) };
}
