// npm run catalog -- [--spec <url|file>] [options]: HELP below lists them (docs/generator.md).
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ArgsError, parseArgsWithHints } from '../lib/parse-args.ts';
import { buildCatalogue } from './build.ts';
import { CATALOGUE_FILE, declarationFiles, expandCatalogue, loadBuilt, readCatalogue, SHARD_DIR, shardsUpToDate, writeCatalogueDir } from './catalogue-files.ts';
import { changeSummaryText, diffCatalogues } from './changes.ts';
import { buildDeclarations, serializeDeclarations } from './declarations.ts';
import { breakingChanges, previousSource, refreshSummary, specUnchanged } from './if-changed.ts';
import { reportMarkdown } from './report.ts';
import { withSpecOperations } from './spec-operations-asset.ts';
import { compareToolsnaps, toolsnapCount, toolsnapDriftText, writeToolsnaps } from './toolsnaps.ts';

const DEFAULT_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

const HELP = `npm run catalog -- [--spec <url|file>] [options]
  --spec <url|file>        OpenAPI 3.x or Swagger 2.0 spec (default: the pinned GitHub spec)
  --out <dir>              where catalog.txt, declarations.txt, shards and toolsnaps go (default catalog)
  --overrides <file>       hand-kept overrides (default <out>/overrides.json when present)
  --check                  write nothing; exit 1 when a regeneration would change a file
  --if-changed             rebuild only when the spec's digest differs from the committed catalogue's
  --fail-on-breaking       with --if-changed: exit 1 when the new spec removes or breaks tools
  --max-name <n>           longest tool name (default 41: fits every client with a server name of up to 16)
  --no-sweep | --full-sweep  skip the schema safety net, or compile every schema (about 3 s more on GitHub)
  --toolsnaps | --no-toolsnaps  write <out>/toolsnaps, one wire snapshot per tool (default: on for the default spec)
  --shard-above-bytes <n>  put the records into <out>/shards/ above this size (default 24 MB)
  --report                 print the token cost of <out>/catalog.txt per toolset, client profile and mode
  --quiet                  no progress lines
`;

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgsWithHints({
      args: argv,
      options: {
        spec: { type: 'string' },
        out: { type: 'string', default: 'catalog' },
        overrides: { type: 'string' },
        check: { type: 'boolean', default: false },
        'if-changed': { type: 'boolean', default: false },
        'fail-on-breaking': { type: 'boolean', default: false },
        'max-name': { type: 'string' },
        'no-sweep': { type: 'boolean', default: false },
        'full-sweep': { type: 'boolean', default: false },
        toolsnaps: { type: 'boolean' },
        'shard-above-bytes': { type: 'string' },
        quiet: { type: 'boolean', default: false },
        report: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowNegative: true,
    }).values;
  } catch (e) {
    if (!(e instanceof ArgsError)) throw e;
    process.stderr.write(`catalog: ${e.message}\n(npm run catalog -- --help lists the options)\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const out = args.out!;
  const catalogueFile = join(out, CATALOGUE_FILE);
  const declarationsFile = join(out, 'declarations.txt');
  // --report: token cost of <out>/catalog.txt per toolset, client profile and discovery mode (scripts/catalog/token-report.ts).
  if (args.report) return (await import('./token-report.ts')).runTokenReport(catalogueFile, args.spec ?? DEFAULT_SPEC);
  // Default overrides: <out>/overrides.json when present.
  const overrides = args.overrides ?? (existsSync(join(out, 'overrides.json')) ? join(out, 'overrides.json') : undefined);
  const previousText = existsSync(catalogueFile) ? await readFile(catalogueFile, 'utf8') : null;
  const previous = previousText === null ? null : { text: previousText, shardDir: join(out, SHARD_DIR) };
  // --if-changed without --spec re-reads the spec the committed catalogue was built from.
  const spec = args.spec ?? (args['if-changed'] ? previousSource(previousText)?.spec : undefined) ?? DEFAULT_SPEC;
  const maxName = args['max-name'] !== undefined ? Number(args['max-name']) : undefined;
  const shardAboveBytes = args['shard-above-bytes'] !== undefined ? Number(args['shard-above-bytes']) : undefined;
  if (shardAboveBytes !== undefined && !(Number.isInteger(shardAboveBytes) && shardAboveBytes >= 0)) {
    process.stderr.write(`catalog: --shard-above-bytes must be a whole number of bytes (got ${args['shard-above-bytes']})\n`);
    return 2;
  }
  const progress = args.quiet ? undefined : (l: string) => process.stderr.write(`${l}\n`);
  if (args['if-changed']) {
    try {
      const verdict = await specUnchanged(spec, previousText);
      if (verdict.unchanged) {
        process.stdout.write('unchanged\n');
        progress?.(`catalog: ${spec} has digest ${verdict.digest}, as ${catalogueFile}; nothing written`);
        return 0;
      }
    } catch (e) {
      process.stderr.write(`catalog: ${(e as Error).message}\n`);
      return 1;
    }
  }

  let result;
  try {
    result = await buildCatalogue(spec, { overrides, previous, maxName, shardAboveBytes, sweep: args['no-sweep'] ? false : args['full-sweep'] ? 'full' : true, progress });
  } catch (e) {
    process.stderr.write(`catalog: ${(e as Error).message}\n`);
    return 1;
  }
  const { text, shards, report, catalogue } = result;
  for (const u of report.security.unsupported) process.stderr.write(`catalog: security scheme ${u.scheme} is not supported: ${u.reason} (calls that need only it are refused; see report.md)\n`);
  // Code mode's declarations, from the catalogue exactly as written (docs/code-mode.md, "Declarations").
  const declarations = serializeDeclarations(buildDeclarations(await expandCatalogue({ text, shards })));
  const declared = declarationFiles(declarations, { hash: report.hash, shards });
  // Static assets: the shards (and big declarations), plus the drift check's baseline (spec-operations-asset.ts).
  const written = { ...declared, shards: withSpecOperations(declared.shards, result.specOperations) };

  // Snapshots by default for the embedded default spec (the committed catalogue), opt-in otherwise.
  const toolsnaps = (args.toolsnaps ?? spec === DEFAULT_SPEC) ? join(out, 'toolsnaps') : undefined;

  if (args.check) {
    // Up to date means a regeneration with the same arguments would change no file it writes (report.md aside:
    // it describes the last run, not the spec).
    let upToDate = previousText === text && (await shardsUpToDate(out, written.shards));
    if (upToDate) {
      process.stderr.write(`catalog: ${catalogueFile} is up to date (${report.tools} tools, hash ${report.hash})\n`);
    } else {
      process.stderr.write(`catalog: ${catalogueFile} is out of date with ${report.spec}\n`);
      if (previous) {
        try {
          process.stderr.write(changeSummaryText(diffCatalogues(await readCatalogue(previous.text, previous.shardDir), catalogue)) + '\n');
        } catch (e) {
          process.stderr.write(`(committed catalogue not compared: ${(e as Error).message})\n`);
        }
      } else process.stderr.write('(no committed catalogue)\n');
    }
    const previousDeclarations = existsSync(declarationsFile) ? await readFile(declarationsFile, 'utf8') : null;
    if (previousDeclarations === written.embedded) process.stderr.write(`catalog: ${declarationsFile} is up to date\n`);
    else {
      upToDate = false;
      process.stderr.write(`catalog: ${declarationsFile} is ${previousDeclarations === null ? 'missing' : 'out of date with the catalogue'} (code mode's search answers from it)\n`);
    }
    if (toolsnaps) {
      const drift = await compareToolsnaps(toolsnaps, catalogue, await loadBuilt({ text, shards }));
      if (drift.missing.length || drift.extra.length || drift.changed.length) {
        upToDate = false;
        process.stderr.write(`catalog: ${toolsnapDriftText(toolsnaps, drift)}\n`);
      } else process.stderr.write(`catalog: ${toolsnaps} is up to date (${toolsnapCount(catalogue)} snapshots)\n`);
    }
    if (upToDate) return 0;
    process.stderr.write('Run `npm run catalog` to regenerate.\n');
    return 1;
  }

  await writeCatalogueDir(out, { text, shards: written.shards });
  await writeAtomic(declarationsFile, written.embedded);
  await writeAtomic(join(out, 'report.md'), reportMarkdown({ ...report, ms: 0 }));
  if (toolsnaps) await writeToolsnaps(toolsnaps, catalogue, await loadBuilt({ text, shards }));
  if (report.changes && !args.quiet) process.stderr.write(changeSummaryText(report.changes, 20) + '\n');
  if (report.names.hashed.length) process.stderr.write(`catalog: ${report.names.hashed.length} tool names needed a hash suffix: ${report.names.hashed.join(', ')}\n`);
  const n = report.names;
  const where = shards.size ? ` and ${shards.size} shards in ${join(out, SHARD_DIR)}` : '';
  process.stderr.write(
    `catalog: wrote ${catalogueFile}${where} (${report.tools} tools, ${n.shortened} names shortened, ${n.hashed.length} hashed, ${n.deprecated.length} deprecated aliases; ${report.bytes} bytes, hash ${report.hash}; search index ${report.search.bytes} bytes in ${report.search.ms} ms) in ${report.ms} ms, and ${shards.size ? `code mode's declarations (${declarations.length} bytes) in ${join(out, SHARD_DIR)}` : `${declarationsFile} (${declarations.length} bytes)`}\n`,
  );
  if (args['if-changed'] || args['fail-on-breaking']) {
    process.stdout.write(refreshSummary(report, previousSource(previousText), join(out, 'report.md'), catalogue.source.version, result.specOperations.digest));
  }
  return args['fail-on-breaking'] && breakingChanges(report.changes).length ? 1 : 0;
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
