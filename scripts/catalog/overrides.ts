// catalog/overrides.json: hand-kept per-tool overrides, keyed by the generated tool name.
import { readFile } from 'node:fs/promises';
import { patternProblem } from '../../src/results/field-pattern.ts';
import { TOOL_NAME_RE } from './naming.ts';

/** MCP hints set by hand (docs/confirmation.md); any left out stay as the generator read them. */
export interface AnnotationOverride {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}
const HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

interface ToolOverride {
  /** false drops the outputSchema; `reason` is then required. */
  outputSchema?: false;
  /** Hints that replace the generator's; `reason` is then required. */
  annotations?: AnnotationOverride;
  /** true: confirm before every call, false: never, whatever CONFIRM_WRITES says; `reason` is then required. */
  confirm?: boolean;
  /** Why the hand edits above: required with outputSchema:false, annotations or confirm, and only then. */
  reason?: string;
  hidden?: boolean;
  /** New name; the generated name stays resolvable as an alias. */
  rename?: string;
  title?: string;
  description?: string;
  toolsets?: string[];
}

export interface Overrides {
  tools: Record<string, ToolOverride>;
  /**
   * Toolset descriptions (name -> description), for new or re-described toolsets. `tools` (generated names)
   * adds those tools to the toolset in bulk, on top of their tag toolsets: a way to define curated groups.
   */
  toolsets?: Record<string, { description: string; tools?: string[] }>;
  /** Toolsets served at bare /mcp; each must exist in the built catalogue. */
  defaultToolsets?: string[];
  /** Result compaction tuning (docs/results.md): field patterns never removed, and always removed. */
  results?: { keep?: string[]; drop?: string[] };
}

export class OverridesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OverridesError';
  }
}

const TOOL_KEYS = new Set(['outputSchema', 'annotations', 'confirm', 'reason', 'hidden', 'rename', 'title', 'description', 'toolsets']);

/** Shape validation (tool names are checked against the catalogue in build). */
export function validateOverridesShape(raw: unknown, where: string): Overrides {
  const errs: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new OverridesError(`${where}: must be an object like {"tools": {}}`);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'tools' && k !== 'toolsets' && k !== 'defaultToolsets' && k !== 'results' && k !== '$comment') errs.push(`unknown top-level key "${k}"`);
  const tools = (o.tools ?? {}) as Record<string, Record<string, unknown>>;
  if (typeof tools !== 'object' || Array.isArray(tools)) errs.push('"tools" must be an object');
  else {
    for (const [name, t] of Object.entries(tools)) {
      const at = `tools.${name}`;
      if (!t || typeof t !== 'object' || Array.isArray(t)) {
        errs.push(`${at}: must be an object`);
        continue;
      }
      for (const k of Object.keys(t)) if (!TOOL_KEYS.has(k)) errs.push(`${at}: unknown key "${k}"`);
      if ('outputSchema' in t && t.outputSchema !== false) errs.push(`${at}.outputSchema: only false is allowed`);
      const edits = [t.outputSchema === false && 'outputSchema:false', 'annotations' in t && 'annotations', 'confirm' in t && 'confirm'].filter(Boolean);
      if (edits.length && (typeof t.reason !== 'string' || !t.reason.trim())) errs.push(`${at}: ${edits.join(', ')} needs a "reason"`);
      if ('reason' in t && !edits.length) errs.push(`${at}: "reason" only goes with outputSchema:false, annotations or confirm`);
      if ('confirm' in t && typeof t.confirm !== 'boolean') errs.push(`${at}.confirm: must be boolean`);
      if ('annotations' in t) errs.push(...annotationProblems(t.annotations, `${at}.annotations`));
      if ('hidden' in t && typeof t.hidden !== 'boolean') errs.push(`${at}.hidden: must be boolean`);
      if ('rename' in t && (typeof t.rename !== 'string' || !TOOL_NAME_RE.test(t.rename))) errs.push(`${at}.rename: must match ${TOOL_NAME_RE}`);
      for (const k of ['title', 'description'] as const) if (k in t && (typeof t[k] !== 'string' || !(t[k] as string).trim())) errs.push(`${at}.${k}: must be a non-empty string`);
      if ('toolsets' in t && (!Array.isArray(t.toolsets) || t.toolsets.length === 0 || !t.toolsets.every((s) => typeof s === 'string' && TOOL_NAME_RE.test(s))))
        errs.push(`${at}.toolsets: must be a non-empty array of names matching ${TOOL_NAME_RE}`);
    }
  }
  const toolsets = o.toolsets as Record<string, unknown> | undefined;
  if (toolsets !== undefined) {
    if (!toolsets || typeof toolsets !== 'object' || Array.isArray(toolsets)) errs.push('"toolsets" must be an object');
    else
      for (const [n, v] of Object.entries(toolsets)) {
        if (!TOOL_NAME_RE.test(n)) errs.push(`toolsets.${n}: name must match ${TOOL_NAME_RE}`);
        if (!v || typeof (v as any).description !== 'string') errs.push(`toolsets.${n}: needs {"description": string}`);
        const members = (v as any)?.tools;
        if (members !== undefined && (!Array.isArray(members) || !members.every((m: unknown) => typeof m === 'string' && TOOL_NAME_RE.test(m))))
          errs.push(`toolsets.${n}.tools: must be an array of tool names matching ${TOOL_NAME_RE}`);
      }
  }
  const defaults = o.defaultToolsets;
  if (defaults !== undefined && (!Array.isArray(defaults) || defaults.length === 0 || !defaults.every((d) => typeof d === 'string' && TOOL_NAME_RE.test(d))))
    errs.push(`defaultToolsets: must be a non-empty array of toolset names matching ${TOOL_NAME_RE}`);
  const results = o.results as Record<string, unknown> | undefined;
  if (results !== undefined) {
    if (!results || typeof results !== 'object' || Array.isArray(results)) errs.push('"results" must be an object like {"keep": [...], "drop": [...]}');
    else
      for (const [k, v] of Object.entries(results)) {
        if (k !== 'keep' && k !== 'drop') errs.push(`results: unknown key "${k}" (keep, drop)`);
        else if (!Array.isArray(v)) errs.push(`results.${k}: must be an array of field patterns`);
        else for (const p of v) if (patternProblem(p)) errs.push(`results.${k}: ${JSON.stringify(p)} ${patternProblem(p)}`);
      }
  }
  if (errs.length) throw new OverridesError(`${where}: invalid overrides:\n  - ${errs.join('\n  - ')}`);
  return {
    tools: tools as Record<string, ToolOverride>,
    ...(toolsets ? { toolsets: toolsets as Overrides['toolsets'] } : {}),
    ...(defaults ? { defaultToolsets: defaults as string[] } : {}),
    ...(results ? { results: results as Overrides['results'] } : {}),
  };
}

function annotationProblems(a: unknown, at: string): string[] {
  if (!a || typeof a !== 'object' || Array.isArray(a)) return [`${at}: must be an object of hints, e.g. {"destructiveHint": false}`];
  const errs: string[] = [];
  const hints = a as Record<string, unknown>;
  for (const [k, v] of Object.entries(hints)) {
    if (!(HINT_KEYS as readonly string[]).includes(k)) errs.push(`${at}: unknown hint "${k}" (${HINT_KEYS.join(', ')})`);
    else if (typeof v !== 'boolean') errs.push(`${at}.${k}: must be boolean`);
  }
  if (!Object.keys(hints).length) errs.push(`${at}: names no hint`);
  if (hints.readOnlyHint === true && hints.destructiveHint === true) errs.push(`${at}: a read-only tool cannot be destructive`);
  return errs;
}

export async function loadOverrides(path: string): Promise<Overrides> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new OverridesError(`Cannot read overrides ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new OverridesError(`${path}: not valid JSON: ${(e as Error).message}`);
  }
  return validateOverridesShape(raw, path);
}
