// npm run corpus -- --seed N [--count 150] [--serve 30] [--sample 30] [--calls 2] [--yaml-share 0.25] [--report F]
// The check acceptance runs on hidden real specs, on specs this repository never used (docs/sweep.md, "Corpus
// check"): draw them with a seed, build each with the generator's CLI, list each built catalogue with the v1 strict
// client over stdio and check the listing's client rules, then serve and sweep the first --serve of them in wrangler
// dev with both strict clients. Exit 1 when anything failed, 2 on bad usage.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArgsError, parseArgsWithHints } from '../lib/parse-args.ts';
import { DIRECTORY, drawSpecs } from './draw.ts';
import { seeded } from '../lib/seeded.ts';
import { argumentProblems } from './arguments.ts';
import { nameOutcome, type NameOutcome } from './names.ts';
import { asYaml, buildSpec, listOverStdio, sweepSpec, type BuildOutcome, type ListOutcome, type SweepOutcome } from './run.ts';

// surfaces.ts runs the Worker's own surfaces, so it is type-checked with the Worker's types (tsconfig.json), and
// imported here by a specifier TypeScript does not follow.
const surfacesModule = './surfaces.ts';
const { surfaceProblems } = (await import(surfacesModule)) as { surfaceProblems(text: string, readShard: (file: string) => Promise<string>): Promise<string[]> };

const USAGE = 'npm run corpus -- --seed <n> [--count 150] [--serve 30] [--sample 30] [--calls 2] [--yaml-share 0.25] [--report <file>] [--keep <dir>]';

interface SpecResult {
  spec: string;
  format: 'json' | 'yaml';
  build: BuildOutcome;
  list?: ListOutcome;
  /** Rule problems of the catalogue's other listings: each client profile in each endpoint mode (surfaces.ts). */
  surfaces?: string[];
  /** Tools whose generated arguments no retry made valid (arguments.ts): for a look, not a failure by itself. */
  arguments?: string[];
  /** Name quality of the built tools (names.ts): smells and titles, listed for a look when over a target. */
  names?: NameOutcome;
  sweep?: SweepOutcome;
}

function whole(name: string, v: string | undefined, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new ArgsError(`--${name} must be a whole number of at least ${min} (got ${v})`);
  return n;
}

export async function main(argv: string[]): Promise<number> {
  let a;
  let opts;
  try {
    a = parseArgsWithHints({
      args: argv,
      options: {
        seed: { type: 'string' },
        count: { type: 'string', default: '150' },
        serve: { type: 'string', default: '30' },
        sample: { type: 'string', default: '30' },
        calls: { type: 'string', default: '2' },
        'yaml-share': { type: 'string', default: '0.25' },
        'build-timeout': { type: 'string', default: '600' },
        report: { type: 'string' },
        keep: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
    if (a.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (a.seed === undefined) throw new ArgsError('--seed is required: the seed names the draw, so a run can be repeated');
    const yamlShare = Number(a['yaml-share']);
    if (!(yamlShare >= 0 && yamlShare <= 1)) throw new ArgsError(`--yaml-share must be between 0 and 1 (got ${a['yaml-share']})`);
    opts = { seed: whole('seed', a.seed, 0), count: whole('count', a.count, 1), serve: whole('serve', a.serve, 0), sample: whole('sample', a.sample, 1), calls: whole('calls', a.calls, 1), yamlShare, buildTimeout: whole('build-timeout', a['build-timeout'], 1) * 1000 };
  } catch (e) {
    if (!(e instanceof ArgsError)) throw e;
    process.stderr.write(`corpus: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  const log = (l: string) => process.stderr.write(`[corpus] ${l}\n`);
  const draw = drawSpecs(opts.seed, opts.count);
  log(`seed ${opts.seed}: ${draw.specs.length} of ${draw.total - draw.seen} unseen specs (${draw.seen} of ${draw.total} are named in this repository and left out)`);
  const work = a.keep ?? (await mkdtemp(join(tmpdir(), 'mcp-corpus-')));
  await mkdir(work, { recursive: true });
  const asYamlToo = seeded(opts.seed ^ 0x5bd1e995);
  const results: SpecResult[] = [];
  try {
    for (const [i, spec] of draw.specs.entries()) {
      const dir = join(work, String(i).padStart(3, '0'));
      const yaml = asYamlToo() < opts.yamlShare;
      const source = join(DIRECTORY, spec);
      const file = yaml ? await asYaml(source, work) : source;
      const build = await buildSpec(file, dir, opts.buildTimeout);
      const r: SpecResult = { spec, format: yaml ? 'yaml' : 'json', build };
      if (build.ok) {
        r.list = await listOverStdio(dir);
        r.arguments = await argumentProblems(dir).catch((e: Error) => [`not checked: ${e.message.slice(0, 300)}`]);
        r.names = await nameOutcome(dir, source).catch((e: Error) => ({ tools: 0, smelly: 0, by: {}, httpVerbNames: 0, badTitles: 0, problems: [`not measured: ${e.message.slice(0, 300)}`] }));
        r.surfaces = await surfaceProblems(await readFile(join(dir, 'catalog.txt'), 'utf8'), (file) => readFile(join(dir, 'shards', file), 'utf8')).catch((e: Error) => [`surfaces not built: ${e.message.slice(0, 300)}`]);
      }
      results.push(r);
      const listed = r.list ? (r.list.ok ? `listed ${r.list.tools}${r.list.problems.length ? `, ${r.list.problems.length} rule problems` : ''}${r.surfaces?.length ? `, ${r.surfaces.length} in other profiles or modes` : ''}${r.arguments?.length ? `, ${r.arguments.length} tools without valid arguments` : ''}${r.names?.smelly ? `, ${r.names.smelly} name smells` : ''}${build.unsupportedSchemes.length ? `, ${build.unsupportedSchemes.length} unsupported security schemes` : ''}` : `LIST FAILED ${r.list.error}`) : '';
      log(`${i + 1}/${draw.specs.length} ${spec} (${r.format}): ${build.ok ? `${build.tools} tools in ${build.ms} ms; ${listed}` : `BUILD FAILED ${build.error}`}`);
    }
    const servable = results.filter((r) => r.build.ok && r.build.tools > 0 && r.list?.ok).slice(0, opts.serve);
    for (const [i, r] of servable.entries()) {
      r.sweep = await sweepSpec(join(DIRECTORY, r.spec), join(work, `sweep-${i}.json`), opts.sample, opts.calls, 20 * 60_000);
      const s = r.sweep.report;
      log(`sweep ${i + 1}/${servable.length} ${r.spec}: ${s ? `${s.calls} calls, ${JSON.stringify(s.totals)}${s.failed ? ' FAILED' : ''}` : `NO REPORT (exit ${r.sweep.exit}) ${r.sweep.error}`}`);
    }
  } finally {
    if (!a.keep) await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
  const summary = summarise(opts.seed, results);
  process.stdout.write(summary.text + '\n');
  if (a.report) await writeFile(a.report, JSON.stringify({ seed: opts.seed, argv, ...summary.counts, results }, null, 2) + '\n');
  return summary.failed ? 1 : 0;
}

function summarise(seed: number, results: SpecResult[]): { text: string; counts: Record<string, number>; failed: boolean } {
  const built = results.filter((r) => r.build.ok);
  const swept = results.filter((r) => r.sweep);
  const sum = (f: (r: SpecResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const t = (k: string) => sum((r) => (r.sweep?.report?.totals as Record<string, number> | undefined)?.[k] ?? 0);
  const ms = built.map((r) => r.build.ms).sort((x, y) => x - y);
  const counts = {
    drawn: results.length,
    built: built.length,
    empty: results.filter((r) => r.build.empty).length,
    yaml: results.filter((r) => r.format === 'yaml').length,
    tools: sum((r) => r.build.tools),
    listed: results.filter((r) => r.list?.ok).length,
    listingProblems: sum((r) => r.list?.problems.length ?? 0) + sum((r) => r.surfaces?.length ?? 0) + sum((r) => r.sweep?.report?.listingProblems?.length ?? 0),
    served: swept.filter((r) => r.sweep?.report?.list.v1.ok && r.sweep.report.list.v2.ok).length,
    swept: swept.length,
    calls: t('ok') + t('type_drift') + t('upstream_error') + t('invalid_arguments') + t('schema_mismatch') + t('error_on_2xx') + t('protocol_error') + t('transport_failure'),
    toolsWithoutValidArguments: sum((r) => r.arguments?.length ?? 0),
    confirmations: sum((r) => r.sweep?.report?.confirmations ?? 0),
    smellyTools: sum((r) => r.names?.smelly ?? 0),
    specsOverNameTargets: results.filter((r) => r.names?.problems.length).length,
    unsupportedSchemes: sum((r) => r.build.unsupportedSchemes?.length ?? 0),
    specsWithUnsupportedSchemes: results.filter((r) => r.build.unsupportedSchemes?.length).length,
    protocolErrors: t('protocol_error') + t('transport_failure'),
    errorOn2xx: t('error_on_2xx'),
    schemaFailures: t('schema_mismatch'),
    invalidArguments: t('invalid_arguments'),
    buildMsMedian: ms[Math.floor(ms.length / 2)] ?? 0,
    buildMsMax: ms.at(-1) ?? 0,
  };
  const lines = [
    `corpus (seed ${seed}): ${counts.built}/${counts.drawn} built (${counts.yaml} as YAML)${counts.empty ? `, ${counts.empty} refused for having no operations (as they should be)` : ''}, ${counts.tools} tools; build time median ${counts.buildMsMedian} ms, max ${counts.buildMsMax} ms`,
    `  listed over stdio by the v1 client: ${counts.listed}/${counts.built}; client-rule problems (that listing, every profile and mode, the served ones): ${counts.listingProblems}`,
    `  tools for which the sweep's generator found no valid arguments (an inputSchema refusing every value, or a generator limit): ${counts.toolsWithoutValidArguments}`,
    `  names: ${counts.smellyTools} of ${counts.tools} tools with a name smell; ${counts.specsOverNameTargets} specs over a name target (smells ≤ 2%, HTTP-verb names ≤ 2%, non-titles ≤ 3%)`,
    `  security schemes the Worker cannot send: ${counts.unsupportedSchemes} in ${counts.specsWithUnsupportedSchemes} specs`,
    `  served and swept: ${counts.served}/${counts.swept}; ${counts.calls} calls: ${counts.protocolErrors} protocol/transport errors, ${counts.errorOn2xx} successes reported as errors, ${counts.schemaFailures} outputSchema failures, ${counts.invalidArguments} refused arguments; ${counts.confirmations} destructive calls confirmed first`,
  ];
  for (const r of results) {
    const probs = [
      ...(r.build.ok ? [] : [`build${r.build.empty ? ' (refused as designed)' : ''}: ${r.build.error?.replace(/\s+/g, ' ').slice(0, 300)}`]),
      ...r.build.notes.map((n) => `note: ${n.slice(0, 200)}`),
      ...(r.list && !r.list.ok ? [`list: ${r.list.error}`] : []),
      ...(r.list?.problems ?? []).slice(0, 5).map((p) => `rule: ${p}`),
      ...(r.surfaces ?? []).slice(0, 5).map((p) => `rule: ${p}`),
      ...(r.arguments ?? []).slice(0, 5).map((p) => `arguments: ${p}`),
      ...(r.names?.problems ?? []).map((p) => `names: ${p}`),
      ...(r.build.unsupportedSchemes ?? []).map((p) => `security: unsupported ${p}`),
      ...(r.sweep && !r.sweep.report ? [`sweep: no report (exit ${r.sweep.exit})`] : []),
      ...(r.sweep?.report?.listingProblems ?? []).slice(0, 5).map((p) => `served rule: ${p}`),
      ...(r.sweep?.report && (r.sweep.report.failed || r.sweep.report.failingSchemaTools.length) ? [`sweep: ${JSON.stringify(r.sweep.report.totals)}; schema ${r.sweep.report.failingSchemaTools.join(',')}; 2xx ${r.sweep.report.errorOn2xxTools.join(',')}`] : []),
    ];
    if (probs.length) lines.push(`  ${r.spec} (${r.format}):`, ...probs.map((p) => `    ${p}`));
  }
  const failed = counts.built + counts.empty < counts.drawn || counts.listed < counts.built || counts.listingProblems > 0 || counts.served < counts.swept || counts.protocolErrors + counts.errorOn2xx + counts.schemaFailures > 0;
  lines.push(failed ? 'RESULT: FAILED' : 'RESULT: ok');
  return { text: lines.join('\n'), counts, failed };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/corpus/cli.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`corpus: ${(e as Error)?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
