// What the live spec is compared with: the fingerprints of the spec the catalogue was built from, which the generator
// writes as the static asset spec-operations.json (scripts/catalog/spec-operations-asset.ts). A catalogue built
// without it (by an older generator, or by hand) falls back to the served tools' method and path: added and removed
// are still counted, changes to existing operations cannot be (`changed: null`), and hidden tools count as added.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { SPEC_OPERATIONS_ASSET, type SpecOperations } from './spec-document.ts';

export interface Baseline {
  kind: 'asset' | 'catalogue';
  /** "METHOD /path" -> fingerprint, or null when only the operation's existence is known. */
  operations: Record<string, string | null>;
}

export async function loadBaseline(loaded: LoadedCatalogue, assets: Fetcher | undefined): Promise<Baseline> {
  const digest = loaded.catalogue.source.digest;
  const asset = assets ? await readAsset(assets) : undefined;
  if (asset && asset.digest === digest) return { kind: 'asset', operations: asset.operations };
  const all = Array.from({ length: loaded.count }, (_, i) => i);
  await loaded.load(all);
  const operations: Record<string, null> = {};
  for (const i of all) {
    const { http } = loaded.peek(i);
    operations[`${http.method.toUpperCase()} ${http.path}`] = null;
  }
  return { kind: 'catalogue', operations };
}

async function readAsset(assets: Fetcher): Promise<SpecOperations | undefined> {
  try {
    const res = await assets.fetch(new Request(`https://assets.local/${SPEC_OPERATIONS_ASSET}`));
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const v = (await res.json()) as SpecOperations;
    return v?.format === 1 && typeof v.digest === 'string' && v.operations && typeof v.operations === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}
