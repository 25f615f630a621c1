// npm run catalog -- --spec <url|file> [--out <dir>] [--overrides <file>] [--check] [--max-name <n>] [--no-sweep] [--quiet]
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalogue } from './build.ts';
import { changeSummaryText, diffCatalogues } from './changes.ts';
import { reportMarkdown } from './report.ts';
import { sortKeys } from './serialize.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';

export const DEFAULT_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';

/**
 * toolsnaps: one pretty-printed JSON file per tool (schemas, annotations, binding) so every schema change
 * shows up as a readable diff in review. Written to a fresh directory that then replaces the old one.
 */
export async function writeToolsnaps(dir: string, cat: Catalogue): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  for (const t of cat.tools) {
    const { description: _d, title: _t, ...snap } = t;
    await writeFile(join(tmp, `${t.name}.json`), JSON.stringify(sortKeys(snap), null, 2) + '\n');
  }
  const old = `${dir}.old-${process.pid}`;
  if (existsSync(dir)) await rename(dir, old);
  await rename(tmp, dir);
  await rm(old, { recursive: true, force: true });
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        spec: { type: 'string', default: DEFAULT_SPEC },
        out: { type: 'string', default: 'catalog' },
        overrides: { type: 'string' },
        check: { type: 'boolean', default: false },
        'max-name': { type: 'string' },
        'no-sweep': { type: 'boolean', default: false },
        'full-sweep': { type: 'boolean', default: false },
        toolsnaps: { type: 'boolean' },
        quiet: { type: 'boolean', default: false },
        report: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowNegative: true,
    }).values;
  } catch (e) {
    process.stderr.write(`catalog: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write('npm run catalog -- --spec <url|file> [--out <dir>] [--overrides <file>] [--check] [--max-name <n>] [--no-sweep|--full-sweep] [--toolsnaps|--no-toolsnaps] [--quiet]\n');
    return 0;
  }
  const out = args.out!;
  const catalogFile = join(out, 'catalog.txt');
  // --report: token cost of <out>/catalog.txt per toolset, client profile and discovery mode (scripts/catalog/token-report.ts).
  if (args.report) return (await import('./token-report.ts')).runTokenReport(catalogFile);
  // Default overrides: <out>/overrides.json when present.
  const overrides = args.overrides ?? (existsSync(join(out, 'overrides.json')) ? join(out, 'overrides.json') : undefined);
  const previous = existsSync(catalogFile) ? await readFile(catalogFile, 'utf8') : null;
  const maxName = args['max-name'] !== undefined ? Number(args['max-name']) : undefined;
  const progress = args.quiet ? undefined : (l: string) => process.stderr.write(`${l}\n`);

  let result;
  try {
    result = await buildCatalogue(args.spec!, { overrides, previous, maxName, sweep: args['no-sweep'] ? false : args['full-sweep'] ? 'full' : true, progress });
  } catch (e) {
    process.stderr.write(`catalog: ${(e as Error).message}\n`);
    return 1;
  }
  const { text, report, catalogue } = result;

  if (args.check) {
    if (previous === text) {
      process.stderr.write(`catalog: ${catalogFile} is up to date (${report.tools} tools, hash ${report.hash})\n`);
      return 0;
    }
    process.stderr.write(`catalog: ${catalogFile} is out of date with ${report.spec}\n`);
    if (previous) {
      try {
        process.stderr.write(changeSummaryText(diffCatalogues(JSON.parse(previous), catalogue)) + '\n');
      } catch {
        process.stderr.write('(committed catalogue is not valid JSON)\n');
      }
    } else process.stderr.write('(no committed catalogue)\n');
    process.stderr.write('Run `npm run catalog` to regenerate.\n');
    return 1;
  }

  await mkdir(out, { recursive: true });
  await writeAtomic(catalogFile, text);
  await writeAtomic(join(out, 'report.md'), reportMarkdown({ ...report, ms: 0 }));
  // Snapshots by default for the embedded default spec (the committed catalogue), opt-in otherwise.
  if (args.toolsnaps ?? args.spec === DEFAULT_SPEC) await writeToolsnaps(join(out, 'toolsnaps'), catalogue);
  if (report.changes && !args.quiet) process.stderr.write(changeSummaryText(report.changes, 20) + '\n');
  process.stderr.write(`catalog: wrote ${catalogFile} (${report.tools} tools, ${report.bytes} bytes, hash ${report.hash}) in ${report.ms} ms\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/catalog/cli.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`catalog: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
