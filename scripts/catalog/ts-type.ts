// JSON Schema -> compact TypeScript type text for code mode's declarations (scripts/catalog/declarations.ts).
// Only what a program needs survives: types, properties, optional markers, enums as literal unions. Descriptions,
// formats and validation keywords are dropped. Object types get a canonical id so identical shapes anywhere in
// the catalogue can be declared once under one name.
import type { JsonSchema } from '../../src/catalogue/types.ts';

/** Enums with more values than this are rendered as their base type. */
export const ENUM_MAX = 30;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface RenderOptions {
  /** The shared type name of an object schema (by canonical id), or undefined to write it inline. */
  sharedName: (id: string) => string | undefined;
  /** Receives every shared name the rendered text references. */
  uses: Set<string>;
}

/** Canonical ids of object shapes: equal ids render to equal text at every depth. */
export class ShapeIds {
  private readonly ids = new Map<string, string>();
  private readonly memo = new WeakMap<object, string>();

  /** The id of an object schema with properties; undefined for everything else. */
  objectId(schema: JsonSchema): string | undefined {
    if (!hasProperties(schema)) return undefined;
    let id = this.memo.get(schema);
    if (!id) {
      const required = new Set(requiredOf(schema));
      const body = Object.entries(properties(schema))
        .map(([k, v]) => `${key(k)}${required.has(k) ? '' : '?'}:${render(v, Infinity, { object: (s) => this.objectId(s) })}`)
        .join(';');
      id = this.ids.get(body);
      if (!id) this.ids.set(body, (id = `#${this.ids.size}`));
      this.memo.set(schema, id);
    }
    return id;
  }
}

/**
 * Calls `visit` for every object with properties that rendering would meet, with a name hint: the property
 * key that holds it (singular for array items), or the hint it was given.
 */
export function forEachObject(schema: unknown, hint: string, visit: (schema: JsonSchema, hint: string) => void): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as JsonSchema;
  if ('const' in s || Array.isArray(s.enum)) return;
  const variants = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as unknown[] | undefined;
  if (variants) return variants.forEach((v) => forEachObject(v, hint, visit));
  if (Array.isArray(s.allOf)) {
    const merged = mergeAllOf(s.allOf as unknown[]);
    if (merged) return forEachObject(merged, hint, visit);
    return s.allOf.forEach((v) => forEachObject(v, hint, visit));
  }
  if (hasProperties(s)) {
    visit(s, hint);
    for (const [k, v] of Object.entries(properties(s))) forEachObject(v, k, visit);
  }
  if (s.items) forEachObject(s.items, singular(hint), visit);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') forEachObject(s.additionalProperties, hint, visit);
}

const IRREGULAR: Record<string, string> = { caches: 'cache', aliases: 'alias', statuses: 'status', analyses: 'analysis', indices: 'index', people: 'person' };

export function singular(word: string): string {
  const irregular = IRREGULAR[word.toLowerCase()];
  if (irregular) return irregular;
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(xes|ches|shes|sses)$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/** Type text of a schema; inline objects nest at most `depth` levels (deeper ones become `object`). */
export function renderType(schema: unknown, depth: number, ids: ShapeIds, options: RenderOptions): string {
  return render(schema, depth, {
    object: (s, d) => {
      const name = options.sharedName(ids.objectId(s) as string);
      if (name) {
        options.uses.add(name);
        return name;
      }
      return d <= 0 ? 'object' : undefined;
    },
    ids,
    options,
  });
}

/** `{ a: string; b?: number }` for an object schema with properties (the body of an interface). */
export function renderObjectBody(schema: JsonSchema, depth: number, ids: ShapeIds, options: RenderOptions): string {
  const required = new Set(requiredOf(schema));
  const child = (s: unknown) => renderType(s, depth - 1, ids, options);
  const members = Object.entries(properties(schema)).map(([k, v]) => `${key(k)}${required.has(k) ? '' : '?'}: ${child(v)}`);
  return members.length ? `{ ${members.join('; ')} }` : '{}';
}

interface Hooks {
  /** A name or id for an object with properties, or undefined to write it inline. */
  object: (schema: JsonSchema, depth: number) => string | undefined;
  ids?: ShapeIds;
  options?: RenderOptions;
}

function render(schema: unknown, depth: number, hooks: Hooks): string {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'unknown';
  const s = schema as JsonSchema;
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) {
    const values = s.enum.length <= ENUM_MAX ? s.enum.map(literal) : typesOf(s).map(primitive);
    return union(values);
  }
  const variants = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as unknown[] | undefined;
  if (variants) {
    const parts = variants.map((v) => render(v, depth, hooks));
    if (typesOf(s).includes('null')) parts.push('null');
    return union(parts);
  }
  if (Array.isArray(s.allOf)) {
    const merged = mergeAllOf(s.allOf as unknown[]);
    return merged ? render({ ...merged, ...(s.type ? { type: s.type } : {}) }, depth, hooks) : union(s.allOf.map((v) => render(v, depth, hooks))).replace(/ \| /g, ' & ');
  }
  const types = typesOf(s);
  const parts = (types.length ? types : inferredTypes(s)).map((t) => {
    if (t === 'object') return objectType(s, depth, hooks);
    if (t === 'array') return `${element(render(s.items, depth, hooks))}[]`;
    return primitive(t);
  });
  return union(parts);
}

function objectType(s: JsonSchema, depth: number, hooks: Hooks): string {
  if (hasProperties(s)) {
    const named = hooks.object(s, depth);
    if (named) return named;
    if (hooks.ids && hooks.options) return renderObjectBody(s, depth, hooks.ids, hooks.options);
  }
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object') return `Record<string, ${render(extra, depth - 1, hooks)}>`;
  return 'Record<string, unknown>';
}

function mergeAllOf(parts: unknown[]): JsonSchema | undefined {
  const objects = parts.filter((p): p is JsonSchema => !!p && typeof p === 'object' && !Array.isArray(p));
  if (objects.length !== parts.length || !objects.every((o) => hasProperties(o) && !o.allOf && !o.anyOf && !o.oneOf)) return undefined;
  const props: Record<string, unknown> = {};
  const required = new Set<string>();
  for (const o of objects) {
    Object.assign(props, properties(o));
    for (const r of requiredOf(o)) required.add(r);
  }
  return { type: 'object', properties: props, required: [...required] };
}

function typesOf(s: JsonSchema): string[] {
  return Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
}

function inferredTypes(s: JsonSchema): string[] {
  if (hasProperties(s) || (s as { additionalProperties?: unknown }).additionalProperties) return ['object'];
  if ((s as { items?: unknown }).items) return ['array'];
  return ['unknown'];
}

function primitive(t: string): string {
  if (t === 'integer' || t === 'number') return 'number';
  if (t === 'string' || t === 'boolean' || t === 'null') return t;
  if (t === 'object') return 'Record<string, unknown>';
  if (t === 'array') return 'unknown[]';
  return 'unknown';
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (!unique.length || unique.includes('unknown')) return 'unknown';
  return unique.join(' | ');
}

function element(type: string): string {
  return / [|&] /.test(type) ? `(${type})` : type;
}

function literal(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null ? JSON.stringify(v) : 'unknown';
}

export function key(k: string): string {
  return IDENTIFIER.test(k) ? k : JSON.stringify(k);
}

export function hasProperties(s: unknown): s is JsonSchema {
  const p = (s as JsonSchema | undefined)?.properties;
  return !!p && typeof p === 'object' && Object.keys(p).length > 0;
}

function properties(s: JsonSchema): Record<string, unknown> {
  return (s.properties ?? {}) as Record<string, unknown>;
}

function requiredOf(s: JsonSchema): string[] {
  return Array.isArray(s.required) ? (s.required as string[]) : [];
}
