// npm run sweep -- [--spec <file|url>] [--upstream <url>] [--calls <n>] [--sample <n>] [--tools a,b]
//                  [--readonly] [--overrides <file>] [--write-overrides] [--report <file>] [--all]
// Exit status: 0 clean; 1 protocol/transport failures, an isError on an upstream 2xx, a failed listing, or (without --write-overrides)
// a tool whose results fail its advertised outputSchema; 2 bad usage.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/proc.ts';
import { formatReport, writeOverrides } from './report.ts';
import { runSweep } from './run.ts';

const USAGE =
  'npm run sweep -- [--spec <file|url>] [--upstream <url>] [--calls <n>] [--sample <n>] [--tools a,b] [--readonly]\n' +
  '                 [--overrides <file>] [--write-overrides] [--report <file>] [--all] [--no-nulls] [--no-extras] [--no-values] [--mock prism|builtin]\n' +
  'Without --spec: the embedded catalogue (catalog/catalog.txt) and its overrides (catalog/overrides.json).';

export async function main(argv: string[]): Promise<number> {
  let a;
  try {
    a = parseArgs({
      args: argv,
      options: {
        spec: { type: 'string' },
        upstream: { type: 'string' },
        calls: { type: 'string', default: '3' },
        sample: { type: 'string' },
        tools: { type: 'string' },
        readonly: { type: 'boolean', default: false },
        overrides: { type: 'string' },
        'write-overrides': { type: 'boolean', default: false },
        report: { type: 'string' },
        all: { type: 'boolean', default: false },
        'no-nulls': { type: 'boolean', default: false },
        'no-extras': { type: 'boolean', default: false },
        'no-values': { type: 'boolean', default: false },
        concurrency: { type: 'string', default: '3' },
        mock: { type: 'string', default: 'prism' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`sweep: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (a.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  const int = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
    return n;
  };
  let calls, sample, concurrency;
  try {
    calls = int('calls', a.calls);
    sample = int('sample', a.sample);
    concurrency = int('concurrency', a.concurrency);
  } catch (e) {
    process.stderr.write(`sweep: ${(e as Error).message}\n`);
    return 2;
  }
  // The embedded catalogue's overrides are catalog/overrides.json; another spec needs its own file
  // (tool names are checked against the catalogue, so one spec's drops would break another's build).
  const overrides = a.overrides ?? (a.spec ? undefined : join(repoRoot, 'catalog', 'overrides.json'));
  if (a['write-overrides'] && !overrides) {
    process.stderr.write('sweep: --write-overrides with --spec needs --overrides <file> (the overrides file of that catalogue)\n');
    return 2;
  }
  if (a.mock !== 'prism' && a.mock !== 'builtin') {
    process.stderr.write(`sweep: --mock must be prism or builtin, got ${a.mock}\n`);
    return 2;
  }
  const progress = (l: string) => process.stderr.write(`[sweep] ${l}\n`);
  const report = await runSweep({
    ...(a.spec ? { spec: a.spec } : {}),
    ...(a.upstream ? { upstream: a.upstream } : {}),
    calls,
    sample,
    concurrency,
    ...(a.tools ? { tools: a.tools.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
    readOnly: a.readonly,
    mock: a.mock as 'prism' | 'builtin',
    ...(overrides && (a.overrides || !a.spec) ? { overrides } : {}),
    drift: { nulls: !a['no-nulls'], extras: !a['no-extras'], values: !a['no-values'] },
    progress,
  });
  process.stdout.write(formatReport(report, a.all) + '\n');
  if (a.report) {
    await mkdir(dirname(a.report), { recursive: true });
    await writeFile(a.report, JSON.stringify(report, null, 2) + '\n');
    process.stderr.write(`[sweep] wrote ${a.report}\n`);
  }
  let schemaFailuresHandled = false;
  if (a['write-overrides'] && overrides) {
    const changes = await writeOverrides(overrides, report);
    schemaFailuresHandled = true;
    if (!changes.length) process.stdout.write(`overrides: no changes to ${overrides}\n`);
    else {
      process.stdout.write(`overrides: ${changes.length} tool(s) get outputSchema:false in ${overrides}\n`);
      for (const c of changes) process.stdout.write(`  + ${c.key}${c.key !== c.tool ? ` (listed as ${c.tool})` : ''}: ${c.reason}\n`);
      process.stdout.write(a.spec ? 'Rebuild the catalogue with this overrides file to apply them.\n' : 'Run `npm run catalog` to regenerate catalog/catalog.txt with them.\n');
    }
  }
  if (report.failed) return 1;
  if (report.failingSchemaTools.length && !schemaFailuresHandled) return 1;
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/sweep/cli.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`sweep: ${(e as Error)?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
