// Catalogue build time and peak RSS, each build a fresh `node scripts/catalog/cli.ts` process under /usr/bin/time.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import { runCapture } from '../exec.ts';
import { GITHUB_SPEC } from '../../lib/prism.ts';
import { STRIPE_SPEC } from '../plan.ts';
import { NODE } from '../servers.ts';
import { fmtBytes, fmtInt, fmtSpread, parseTimeV, spread, verdict } from '../stats.ts';

/** The committed catalogue's files (catalog.txt and any shards), raw and gzip -9. */
function committedCatalogue(): { bytes: number; gzip: number } {
  const dir = join(repoRoot, 'catalog');
  const files = [join(dir, 'catalog.txt'), ...readdirSync(join(dir, 'shards')).filter((f) => f.endsWith('.txt')).map((f) => join(dir, 'shards', f))];
  let bytes = 0;
  let gzip = 0;
  for (const f of files) {
    const b = readFileSync(f);
    bytes += b.length;
    gzip += gzipSync(b, { level: 9 }).length;
  }
  return { bytes, gzip };
}

export async function benchBuild(ctx: BenchContext): Promise<void> {
  const { plan, results } = ctx;
  const raw: Record<string, unknown> = {};
  results.raw.build = raw;
  const committed = committedCatalogue();
  raw.catalogue = committed;
  const bytesResult = `${fmtBytes(committed.bytes)} (${fmtInt(committed.bytes)} B) · gzip ${fmtBytes(committed.gzip)}`;
  results.row({ section: 'build', measure: 'catalogue bytes, GitHub (catalog/catalog.txt, format 2)', result: bytesResult, target: '≤ 2 MB', verdict: verdict(committed.bytes / 1e6, 2, '2 MB'), reproduce: 'wc -c catalog/catalog.txt' });
  results.target({ section: 'build', measure: 'catalogue bytes, GitHub', result: bytesResult, target: '≤ 2 MB', verdict: verdict(committed.bytes / 1e6, 2, '2 MB') });
  for (const [label, spec, targetS, targetGB] of [
    ['GitHub', GITHUB_SPEC, 10, 1],
    ['Stripe', STRIPE_SPEC, undefined, undefined],
  ] as const) {
    const wall: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < plan.n.buildReps; i++) {
      const out = await mkdtemp(join(tmpdir(), 'mcp-bench-build-'));
      ctx.log(`build ${label} ${i + 1}/${plan.n.buildReps}`);
      const r = await runCapture('/usr/bin/time', ['-v', NODE, 'scripts/catalog/cli.ts', '--spec', spec, '--out', out, '--quiet']);
      const t = parseTimeV(r.out);
      if (r.code !== 0 || t.maxRssKiB === undefined) throw new Error(`catalogue build of ${spec} failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
      wall.push(t.wallS !== undefined ? t.wallS * 1000 : r.ms);
      rss.push(t.maxRssKiB * 1024);
    }
    const sw = spread(wall);
    const sr = spread(rss);
    raw[label] = { wallMs: wall, maxRssBytes: rss };
    results.row({
      section: 'build',
      measure: `catalogue build, ${label} (${spec.split('/').pop()})`,
      result: `${fmtSpread(sw, (ms) => `${(ms / 1000).toFixed(2)} s`)} · peak RSS ${fmtSpread(sr, fmtBytes)}`,
      target: targetS !== undefined ? `≤ ${targetS} s, ≤ ${targetGB} GB` : undefined,
      verdict: targetS !== undefined ? (sw.median <= targetS * 1000 && sr.median <= targetGB! * 1e9 ? `met (≤ ${targetS} s, ≤ ${targetGB} GB)` : `MISSED (${sw.median > targetS * 1000 ? `> ${targetS} s` : ''}${sr.median > targetGB! * 1e9 ? ` > ${targetGB} GB` : ''})`) : undefined,
      reproduce: `/usr/bin/time -v node scripts/catalog/cli.ts --spec ${spec} --out /tmp/cat --quiet`,
    });
  }
  results.note('build', `Each build is a fresh process: \`/usr/bin/time -v node scripts/catalog/cli.ts --spec <spec> --out <fresh temp dir> --quiet\` (the same defaults as \`npm run catalog\`, including the fast Ajv meta-schema sweep; no previous catalogue, so no diff). Wall clock and "Maximum resident set size" from time -v; ${plan.n.buildReps} run(s) each, median (min, max).`);
}
