// `specDrift` as /healthz and /admin/schema-health show it: the last drift check's outcome for the served catalogue.
// /healthz is public, so it carries counts, times and the spec URL without its query; /admin adds the digests and
// the operations by name. Never throws: a store that cannot be read shows as `error`.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Env } from '../config.ts';
import { driftSettings } from './settings.ts';
import { readDrift } from './store.ts';

export interface SpecDriftHealth {
  enabled: boolean;
  stale: boolean;
  checkedAt: string | null;
  source: string | null;
  added: number;
  removed: number;
  changed: number | null;
  error?: string;
  reason?: string;
  [detail: string]: unknown;
}

type HealthEnv = Pick<Env, 'SPEC_URL' | 'SPEC_AUTH_HEADER' | 'SPEC_CHECK_CRON' | 'SPEC_CHECK_TIMEOUT_MS' | 'SPEC_MAX_BYTES' | 'CONFIG' | 'KEYS'>;

export async function specDriftHealth(loaded: LoadedCatalogue, env: HealthEnv, opts: { detail?: boolean } = {}): Promise<SpecDriftHealth> {
  const base = { stale: false, checkedAt: null, added: 0, removed: 0, changed: 0 };
  try {
    const { source } = loaded.catalogue;
    const settings = driftSettings(env, source.spec);
    if (!settings.enabled) return { enabled: false, ...base, source: null, reason: settings.reason };
    const read = await readDrift(env);
    const r = read.record?.catalogueDigest === (source.digest ?? '') && read.record.source === settings.source ? read.record : undefined;
    const error = r?.error ?? read.error ?? settings.invalid;
    const out: SpecDriftHealth = {
      enabled: true,
      stale: r?.stale ?? false,
      checkedAt: r?.checkedAt ?? null,
      source: settings.source,
      added: r?.added ?? 0,
      removed: r?.removed ?? 0,
      changed: r ? r.changed : 0,
      ...(error ? { error } : {}),
    };
    if (!opts.detail) return out;
    return {
      ...out,
      catalogueDigest: source.digest ?? null,
      digest: r?.digest ?? null,
      readAt: r?.readAt ?? null,
      schedule: settings.cron ?? 'every cron trigger',
      ...(r?.baseline ? { baseline: r.baseline } : {}),
      ...(r?.operations ? { operations: r.operations } : {}),
    };
  } catch (e) {
    return { enabled: true, ...base, source: null, error: `drift status unavailable: ${(e as Error).message}` };
  }
}
