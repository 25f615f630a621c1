// The drift check's baseline: the digest and per-operation fingerprints of the spec a catalogue was built from,
// written beside the catalogue's shards as the static asset spec-operations.json. The Worker's scheduled check reads
// it through the ASSETS binding and compares the live spec against it (docs/operations.md, "Spec drift"). An asset,
// not part of catalog.txt, so it costs the Worker nothing at startup and nothing in the bundle.
import { SPEC_OPERATIONS_ASSET, type SpecOperations } from '../../src/spec-drift/spec-document.ts';

/** One operation per line, keys sorted, so a regeneration's diff shows which operations moved. */
export function serializeSpecOperations(ops: SpecOperations): string {
  const keys = Object.keys(ops.operations).sort();
  const lines = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(ops.operations[k])}`);
  return `{"digest":${JSON.stringify(ops.digest)},"format":${ops.format},"operations":{\n${lines.join(',\n')}\n}}\n`;
}

/** The static-asset files of a catalogue (its shards, maybe the declarations) plus the drift baseline. */
export function withSpecOperations(assets: ReadonlyMap<string, string>, ops: SpecOperations): ReadonlyMap<string, string> {
  return new Map([...assets, [SPEC_OPERATIONS_ASSET, serializeSpecOperations(ops)]]);
}
