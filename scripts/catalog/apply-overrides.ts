// Applies catalog/overrides.json (shape checked in overrides.ts) to the generated tools: per-tool edits, curated
// toolsets, hidden tools and the default toolsets. Every name it uses must exist, and no two visible tools may
// answer to the same name.
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { OverridesError, type Overrides } from './overrides.ts';

interface OverridesApplied {
  /** Tools left after hiding, in generation order. */
  visible: CatalogueTool[];
  /** Generated names of hidden tools, sorted. */
  hidden: string[];
  toolsets: Record<string, { description: string }>;
  defaultToolsets?: string[];
}

/** `generatedToolsets`: descriptions of the toolsets the spec itself defines (tags and paths). */
export function applyOverrides(tools: CatalogueTool[], overrides: Overrides, generatedToolsets: Map<string, string>): OverridesApplied {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const unknown = Object.keys(overrides.tools).filter((n) => !byName.has(n));
  if (unknown.length) {
    throw new OverridesError(`overrides name tools that this spec does not generate: ${unknown.join(', ')}`);
  }
  const hidden: string[] = [];
  for (const [n, ov] of Object.entries(overrides.tools).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const t = byName.get(n)!;
    if (ov.hidden) hidden.push(n);
    if (ov.title) {
      t.title = ov.title;
      t.annotations.title = ov.title;
    }
    if (ov.description) t.description = ov.description;
    if (ov.toolsets) t.toolsets = [...new Set(ov.toolsets)].sort();
    if (ov.annotations) {
      Object.assign(t.annotations, ov.annotations);
      // Read-only by hand: nothing it does can destroy (the generator's destructive reading no longer applies).
      if (ov.annotations.readOnlyHint) t.annotations.destructiveHint = false;
    }
    if (ov.confirm !== undefined) t.confirm = ov.confirm;
    if (ov.outputSchema === false) {
      delete t.outputSchema;
      delete t.outputWrapped;
      t.outputSchemaDropped = `override: ${ov.reason}`;
    }
    if (ov.rename && ov.rename !== n) {
      t.aliases = [...new Set([...(t.aliases ?? []), n])].sort();
      t.name = ov.rename;
    }
  }
  // Bulk toolset membership (curated groups): added on top of tag or per-tool toolsets.
  for (const [ts, def] of Object.entries(overrides.toolsets ?? {})) {
    const missing = (def.tools ?? []).filter((n) => !byName.has(n));
    if (missing.length) throw new OverridesError(`overrides toolsets.${ts}.tools name tools that this spec does not generate: ${missing.join(', ')}`);
    for (const n of def.tools ?? []) byName.get(n)!.toolsets = [...new Set([...byName.get(n)!.toolsets, ts])].sort();
  }
  const hiddenSet = new Set(hidden.map((n) => byName.get(n)!));
  const visible = tools.filter((t) => !hiddenSet.has(t));
  const seen = new Map<string, string>();
  for (const t of visible) {
    for (const n of [t.name, ...(t.aliases ?? [])]) {
      const prev = seen.get(n);
      if (prev) throw new OverridesError(`overrides: name "${n}" is used by two tools (${prev} and ${t.http.method} ${t.http.path})`);
      seen.set(n, `${t.http.method} ${t.http.path}`);
    }
  }

  const toolsets: Record<string, { description: string }> = {};
  for (const ts of [...new Set(visible.flatMap((t) => t.toolsets))].sort()) {
    toolsets[ts] = { description: overrides.toolsets?.[ts]?.description ?? generatedToolsets.get(ts) ?? `Tools in "${ts}".` };
  }

  const defaultToolsets = overrides.defaultToolsets ? [...new Set(overrides.defaultToolsets)].sort() : undefined;
  const unknownDefaults = (defaultToolsets ?? []).filter((d) => !(d in toolsets));
  if (unknownDefaults.length) throw new OverridesError(`overrides defaultToolsets name toolsets this catalogue does not have: ${unknownDefaults.join(', ')}`);
  return { visible, hidden: hidden.sort(), toolsets, defaultToolsets };
}
