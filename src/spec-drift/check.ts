// The scheduled drift check (docs/operations.md, "Spec drift"): fetch the watched spec (conditionally, bounded),
// digest it as the generator does, and when the digest differs from the catalogue's, count the operations added,
// removed and changed against the build-time fingerprints. One KV record and one `spec_drift_check` log line per run.
// Nothing here throws: a failed fetch or parse is recorded as `error` and keeps the last good comparison, so a spec
// that is down never marks the catalogue stale, and the usage cleanup on the same cron trigger runs regardless.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Env } from '../config.ts';
import { log } from '../lib/log.ts';
import { loadBaseline } from './baseline.ts';
import { fetchSpec } from './fetch-spec.ts';
import { driftSettings, YAML_MAX_BYTES } from './settings.ts';
import { compareOperations, hasExternalRef, openApiVersion, operationFingerprints, parseSpecText, sortedDocument, specDigest, SpecDocumentError } from './spec-document.ts';
import { NAMED_MAX, readDrift, writeDrift, type DriftRecord } from './store.ts';

type CheckEnv = Pick<Env, 'SPEC_URL' | 'SPEC_AUTH_HEADER' | 'SPEC_CHECK_CRON' | 'SPEC_CHECK_TIMEOUT_MS' | 'SPEC_MAX_BYTES' | 'CONFIG' | 'KEYS' | 'ASSETS'>;

/** The Worker's cron entry for the check; skips cron expressions other than SPEC_CHECK_CRON when that is set. */
export async function specDriftScheduled(controller: Pick<ScheduledController, 'cron' | 'scheduledTime'>, env: CheckEnv, loaded: LoadedCatalogue): Promise<void> {
  const settings = driftSettings(env, loaded.catalogue.source.spec);
  if (settings.enabled && settings.cron && settings.cron !== controller.cron) return;
  await runDriftCheck(env, loaded);
}

/** Runs one check and stores its outcome; undefined when the check is off (no SPEC_URL and no URL source). */
export async function runDriftCheck(env: CheckEnv, loaded: LoadedCatalogue): Promise<DriftRecord | undefined> {
  const settings = driftSettings(env, loaded.catalogue.source.spec);
  if (!settings.enabled) return undefined;
  const t0 = Date.now();
  const catalogueDigest = loaded.catalogue.source.digest ?? '';
  // Fresh from KV: the cron may run in an isolate that has not served the last check.
  const stored = (await readDrift(env, { fresh: true })).record;
  const prev = stored?.catalogueDigest === catalogueDigest && stored.source === settings.source ? stored : undefined;
  const checkedAt = new Date(t0).toISOString();
  // A failed check keeps the last good comparison (and its validators); only its error is new.
  let record: DriftRecord = { stale: false, added: 0, removed: 0, changed: 0, ...prev, error: undefined, v: 1, catalogueDigest, source: settings.source, checkedAt };
  let outcome: 'current' | 'stale' | 'not_modified' | 'error';
  let bytes: number | undefined;
  try {
    if (settings.invalid) throw new SpecDocumentError(settings.invalid);
    if (!catalogueDigest) throw new SpecDocumentError('the catalogue records no spec digest; regenerate it with npm run catalog');
    const fetched = await fetchSpec(settings, prev?.digest ? { etag: prev.etag, lastModified: prev.lastModified } : {});
    if (fetched.status === 'not_modified') {
      if (!prev?.digest) throw new SpecDocumentError('the spec answered HTTP 304 to a request without validators');
      record = { ...record, readAt: checkedAt, ...validators(fetched) };
      outcome = 'not_modified';
    } else {
      bytes = fetched.bytes;
      const compared = await compare(fetched, catalogueDigest, prev, loaded, env.ASSETS);
      record = { ...record, ...compared, readAt: checkedAt, etag: fetched.etag, lastModified: fetched.lastModified };
      outcome = compared.stale ? 'stale' : 'current';
    }
  } catch (e) {
    record.error = e instanceof Error ? e.message : String(e);
    outcome = 'error';
  }
  const write = await writeDrift(env, record);
  log('spec_drift_check', {
    source: settings.source,
    outcome,
    stale: record.stale,
    added: record.added,
    removed: record.removed,
    changed: record.changed,
    digest: record.digest,
    catalogueDigest,
    ...(record.baseline ? { baseline: record.baseline } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
    ms: Date.now() - t0,
    stored: write.stored,
    ...(write.error ? { storeError: write.error } : {}),
    ...(record.error ? { error: record.error } : {}),
  });
  return record;
}

const validators = (v: { etag?: string; lastModified?: string }) => ({ etag: v.etag, lastModified: v.lastModified });

type Comparison = Pick<DriftRecord, 'stale' | 'added' | 'removed' | 'changed' | 'digest' | 'baseline' | 'operations'>;

/** `body.text` is emptied once parsed, so the text and the parsed document are not both kept while comparing. */
async function compare(body: { text: string; bytes: number }, catalogueDigest: string, prev: DriftRecord | undefined, loaded: LoadedCatalogue, assets: Fetcher | undefined): Promise<Comparison> {
  const isJson = body.text.replace(/^\uFEFF/, '').trimStart().startsWith('{');
  if (!isJson && body.bytes > YAML_MAX_BYTES) {
    throw new SpecDocumentError(`a YAML spec over ${YAML_MAX_BYTES} bytes is not parsed in the Worker (serve it as JSON, or watch it with npm run catalog -- --if-changed)`);
  }
  const parsed = await parseSpecText(body.text);
  body.text = '';
  openApiVersion(parsed);
  if (hasExternalRef(parsed)) throw new SpecDocumentError('the spec has external $refs, which the Worker does not resolve (watch it with npm run catalog -- --if-changed)');
  const doc = sortedDocument(parsed, { consume: true });
  const digest = await specDigest(doc);
  if (digest === catalogueDigest) return { stale: false, added: 0, removed: 0, changed: 0, digest, baseline: undefined, operations: undefined };
  // The same document as at the last read (a server without ETag or Last-Modified): the comparison stands.
  if (prev?.digest === digest && prev.stale && prev.operations) {
    return { stale: true, added: prev.added, removed: prev.removed, changed: prev.changed, digest, baseline: prev.baseline, operations: prev.operations };
  }
  const live = await operationFingerprints(doc);
  const baseline = await loadBaseline(loaded, assets);
  const diff = compareOperations(baseline.operations, live);
  return {
    stale: true,
    added: diff.added.length,
    removed: diff.removed.length,
    changed: baseline.kind === 'asset' ? diff.changed.length : null,
    digest,
    baseline: baseline.kind,
    operations: { added: diff.added.slice(0, NAMED_MAX), removed: diff.removed.slice(0, NAMED_MAX), changed: diff.changed.slice(0, NAMED_MAX) },
  };
}
