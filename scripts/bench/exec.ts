// Runs a command to completion with its output captured (stdout and stderr interleaved), for the sections that time
// or parse whole processes (wrangler, /usr/bin/time).
import { spawn } from 'node:child_process';
import { childEnv, repoRoot } from '../lib/proc.ts';

export function runCapture(command: string, args: string[], cwd = repoRoot): Promise<{ code: number; out: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('exit', (code) => resolve({ code: code ?? 1, out, ms: performance.now() - t0 }));
  });
}
