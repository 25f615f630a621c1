// A successful JSON body -> the tool result, in one pass: parsed once (by the caller), shaped once (projection,
// compaction, whole items that fit: src/results/shape.ts), shortened only if still over the budget, validated once
// against the outputSchema the client was shown, and serialised once (the text block and structuredContent share that
// one string). The slow paths (a body the schema does not describe, shaping or a note the schema refuses) run only
// when the one validation fails.
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { errorResult } from '../lib/tool-result.ts';
import { fitTokens, withinTokens } from '../lib/tokens.ts';
import { fitNote, type ResultBudget } from '../results/budget.ts';
import { pagingArgs, shrinkJson, truncationNote } from '../results/shrink-json.ts';
import { fittedToBudget } from '../results/within-budget.ts';
import { besideSchema } from './beside-schema.ts';
import { NOTE_ANNOTATIONS, SCHEMA_MISMATCH_MESSAGE, structuredResultJson, type Conversion, type ConvertContext } from './conversion.ts';
import { isPlainObject } from './encoding.ts';

type Json = Record<string, unknown>;

/** A candidate structured result: the value, its JSON, the note that goes with it, and whether anything was left out. */
interface Candidate {
  value: Json;
  json: string;
  note?: string;
  truncated: boolean;
  /** The generic shortening cut it (not only whole items). */
  shrunk: boolean;
  /** Known to be within the budget's data room (whole items were fitted to it). */
  fits?: boolean;
}

export function jsonResult(tool: CatalogueTool, schema: JsonSchema | undefined, data: unknown, ctx: ConvertContext): Conversion {
  if (!schema) return unstructured(tool, data, ctx);
  const { budget } = ctx;
  const wrap = tool.outputWrapped === true || !isPlainObject(data);
  const raw: Json = wrap ? { result: data } : (data as Json);
  const shaped = ctx.shape?.(raw);
  const useShaped = shaped !== undefined && isPlainObject(shaped.value);
  const first = fit(tool, useShaped ? { value: shaped.value as Json, json: shaped.json ?? JSON.stringify(shaped.value), ...(shaped.note ? { note: shaped.note } : {}), truncated: shaped.cut, shrunk: false, fits: shaped.fits === true } : whole(raw), budget);
  const done = finish(schema, first, budget);
  if (done) return done;
  // Slow path: the one validation failed. The data itself decides whether the API drifted from the schema.
  const check = validate(schema, raw);
  if (!check.valid) return mismatch(tool, schema, data, check.errors, budget);
  // The data matches; shaping or the note did not (e.g. a closed schema). The data as sent, shortened if need be.
  const plain = useShaped ? fit(tool, whole(raw), budget) : first;
  return (useShaped ? finish(schema, plain, budget) : undefined) ?? withoutNote(schema, wrap, plain, budget);
}

function whole(value: Json): Candidate {
  return { value, json: JSON.stringify(value), truncated: false, shrunk: false };
}

/** Shortens what is still over the budget's data room, and adds the note that says so. */
function fit(tool: CatalogueTool, c: Candidate, budget: ResultBudget): Candidate {
  if (c.fits || withinTokens(c.json, budget.dataTokens)) return c;
  const shrunk = shrinkJson(c.value, budget.dataTokens);
  if (!shrunk) return c;
  const note = joinNotes(c.note, truncationNote(shrunk, budget.tokens, pagingArgs(tool.inputSchema)));
  const value = shrunk.value as Json;
  return { value, json: JSON.stringify(value), ...(note ? { note } : {}), truncated: true, shrunk: true };
}

/** The candidate with its note under a free key, if the schema takes it: the one validation. */
function finish(schema: JsonSchema, c: Candidate, budget: ResultBudget): Conversion | undefined {
  let structured = c.value;
  let text = c.json;
  if (c.note) {
    const note = fitNote(c.note, budget);
    const key = noteKey(c.value, schema, c.truncated ? 'truncated' : 'note');
    structured = { ...c.value, [key]: note };
    text = text === '{}' ? `{${JSON.stringify(key)}:${JSON.stringify(note)}}` : `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(note)}}`;
  }
  if (!validate(schema, structured).valid) return undefined;
  const result = fittedToBudget({ content: [{ type: 'text' as const, text }], structuredContent: structured });
  return { kind: 'json', outcome: 'ok', validation: 'valid', truncated: c.truncated, result, json: structuredResultJson(text) };
}

/**
 * The data matches the schema but the candidate does not: a cut the schema refuses (e.g. minItems) goes beside it;
 * a note it refuses is left out.
 */
function withoutNote(schema: JsonSchema, wrap: boolean, c: Candidate, budget: ResultBudget): Conversion {
  if (!c.shrunk) {
    const ok = { kind: 'json' as const, outcome: 'ok' as const, validation: 'valid' as const, truncated: c.truncated };
    return { ...ok, result: fittedToBudget({ content: [{ type: 'text' as const, text: c.json }], structuredContent: c.value }), json: structuredResultJson(c.json) };
  }
  const cutData = wrap ? c.value.result : c.value;
  const too = `The result is too large to return (over ~${budget.tokens} tokens) and could not be shortened within the declared schema`;
  const aside = besideSchema(schema, wrap, cutData, (key) => fitNote(`${too}; the shortened data is under "${key}". ${c.note ?? ''}`.trim(), budget));
  const base = { kind: 'json' as const, outcome: 'too_large' as const, validation: 'valid' as const, truncated: true };
  if (aside) {
    const text = JSON.stringify(aside);
    return { ...base, result: { content: [{ type: 'text', text }], structuredContent: aside }, json: structuredResultJson(text) };
  }
  return { ...base, result: errorResult(`${too}. ${c.note ?? ''}\n${fitTokens(c.json, budget.dataTokens)}`) };
}

/** A tool without an outputSchema: the JSON as text, a note in its own block. */
function unstructured(tool: CatalogueTool, data: unknown, ctx: ConvertContext): Conversion {
  const shaped = ctx.shape?.(data);
  let value = shaped ? shaped.value : data;
  let json = shaped?.json ?? JSON.stringify(value);
  let note = shaped?.note;
  let truncated = Boolean(shaped?.cut);
  if (!(shaped?.fits || withinTokens(json, ctx.budget.dataTokens))) {
    const shrunk = shrinkJson(value, ctx.budget.dataTokens);
    if (shrunk) {
      value = shrunk.value;
      json = JSON.stringify(value);
      note = joinNotes(note, truncationNote(shrunk, ctx.budget.tokens, pagingArgs(tool.inputSchema)));
      truncated = true;
    }
  }
  const content: Conversion['result']['content'] = [{ type: 'text', text: json }];
  if (note) content.push({ type: 'text', text: fitNote(note, ctx.budget), annotations: NOTE_ANNOTATIONS });
  return { kind: 'json', outcome: 'ok', validation: 'none', truncated, result: fittedToBudget({ content }) };
}

/** A success whose body the schema does not describe: the data beside the empty structured result, with a note. */
function mismatch(tool: CatalogueTool, schema: JsonSchema, data: unknown, errors: string[], budget: ResultBudget): Conversion {
  const first = errors.slice(0, 5);
  const shrunk = shrinkJson(data, budget.dataTokens);
  const value = shrunk ? shrunk.value : data;
  const why = `${SCHEMA_MISMATCH_MESSAGE} of tool ${tool.name} (${first.join('; ')})`;
  const base = { kind: 'json' as const, outcome: 'schema_mismatch' as const, validation: 'mismatch' as const, truncated: !!shrunk, schemaErrors: first };
  const aside = besideSchema(schema, tool.outputWrapped === true, value, (key) => fitNote(`The call succeeded, but the ${why}; the data is under "${key}" as the API sent it${shrunk ? ', shortened to fit' : ''}.`, budget));
  if (aside) {
    const text = JSON.stringify(aside);
    return { ...base, result: { content: [{ type: 'text', text }], structuredContent: aside }, json: structuredResultJson(text) };
  }
  // A schema that takes no structured result at all (a catalogue built otherwise): only isError can carry the data.
  return {
    ...base,
    result: {
      content: [
        { type: 'text', text: `Error: ${fitNote(why, budget)}. The upstream call itself succeeded; the data it returned follows as JSON.` },
        { type: 'text', text: JSON.stringify(value) },
      ],
      isError: true,
    },
  };
}

function joinNotes(...notes: Array<string | undefined | false>): string | undefined {
  const text = notes.filter(Boolean).join(' ');
  return text || undefined;
}

/** A key for the note that neither the data nor the schema uses: `truncated` (something was left out) or `note`. */
function noteKey(obj: Json, schema: JsonSchema, base: 'truncated' | 'note'): string {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  for (const k of [base, `_${base}`, `_${base}_note`]) if (!(k in obj) && !(k in props)) return k;
  return `_mcp_${base}_note`;
}
