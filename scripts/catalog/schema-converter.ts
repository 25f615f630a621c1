// OpenAPI schema (3.0 / 3.1 / converted 2.0) -> JSON Schema in the draft-07 ∩ 2020-12 subset that
// every MCP client accepts. Hand-written because no library does this translation with the client
// constraints we need (open outputs, no formats in outputs, depth/size budgets, lossy-warning log).
//
// Local `$ref`s are resolved lazily against the document. Recursion is bounded by a nesting depth
// (properties/items levels), so cycles (Stripe's 65-schema cycle) are cut at the depth limit; a ref
// that reaches itself without nesting (allOf loops) is cut immediately. Results are memoised per
// (ref, mode, depth left), so the result for a ref is a pure function of the spec: adding an
// operation never changes another tool's schema.
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';
import { mapValuesNote } from './output-drift.ts';
import { reconcileEnum } from './enum-types.ts';
import { uPattern } from './regex-check.ts';
import { cleanDefault } from './schema-defaults.ts';
import { schemaSize } from './schema-size.ts';
import { trimText } from './trim-text.ts';
import { allOfParts } from './type-conflict.ts';

export type Mode = 'input' | 'output';

export interface Warn {
  (kind: string, detail: string): void;
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
// Formats that Ajv (ajv-formats) and @cfworker/json-schema know; others become description text.
const KNOWN_FORMATS = new Set(['date', 'time', 'date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password']);
const ARG_NAME_RE = /^[a-zA-Z0-9_.-]{1,64}$/;

interface ConvertLimits {
  /** Max nesting depth (properties/items levels) below the schema passed in. */
  depth: number;
  /** Max chars of description text kept per schema node. */
  descMax: number;
}

const isNonNegInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

export class SchemaConverter {
  readonly doc: any;
  readonly warn: Warn;
  private memo = new Map<string, JsonSchema>();
  private refStack: { ref: string; depth: number }[] = [];

  constructor(doc: any, warn: Warn) {
    this.doc = doc;
    this.warn = warn;
  }

  /** Resolve a local JSON pointer ("#/components/schemas/X"). Returns undefined when missing. */
  resolvePointer(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    const parts = ref.slice(1).split('/').slice(1).map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
    let cur: any = this.doc;
    for (const p of parts) {
      if (cur === null || typeof cur !== 'object' || !(p in cur)) return undefined;
      cur = cur[p];
    }
    return cur;
  }

  /** Follow $ref chains (for parameters, bodies, responses, schemas). Siblings of $ref are merged over the target. */
  deref<T = any>(node: any, seen = 0): T {
    if (!isObj(node) || typeof node.$ref !== 'string' || seen > 50) return node as T;
    const target = this.resolvePointer(node.$ref);
    if (target === undefined) return node as T;
    const { $ref, ...siblings } = node;
    const resolved = this.deref(target, seen + 1);
    if (Object.keys(siblings).length === 0 || !isObj(resolved)) return resolved as T;
    return { ...resolved, ...siblings } as T;
  }

  /** A binary payload: `type: file` (Swagger 2.0) or a string with `format: binary`. */
  isBinary(schema: unknown): boolean {
    const r = this.deref(schema);
    return isObj(r) && (r.type === 'file' || (r.type === 'string' && r.format === 'binary'));
  }

  /** Whether the node (after ref resolution) is flagged readOnly / writeOnly. */
  flag(node: unknown, key: 'readOnly' | 'writeOnly'): boolean {
    const n = this.deref(node);
    if (!isObj(n)) return false;
    if (n[key] === true) return true;
    // `allOf: [{$ref}], readOnly: true` and `allOf: [{readOnly: true}]` patterns
    if (Array.isArray(n.allOf) && n.allOf.length === 1) return this.flag(n.allOf[0], key);
    return false;
  }

  convert(node: unknown, mode: Mode, limits: ConvertLimits, where: string): JsonSchema {
    return this.conv(node, mode, limits.depth, limits, where);
  }

  private conv(node: unknown, mode: Mode, depthLeft: number, limits: ConvertLimits, where: string): JsonSchema {
    if (node === true || node === undefined || node === null) return {};
    if (node === false) return mode === 'input' ? { not: {} } : {};
    if (!isObj(node)) return {};
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const target = this.resolvePointer(ref);
      if (target === undefined) {
        this.warn('unresolved-ref', `${where}: $ref ${ref} not found; replaced by {}`);
        return {};
      }
      const { $ref: _r, ...siblings } = node;
      const sibKeys = Object.keys(siblings).filter((k) => !k.startsWith('x-') && k !== 'example' && k !== 'examples');
      let base: JsonSchema;
      if (this.refStack.some((e) => e.ref === ref && e.depth === depthLeft)) {
        this.warn('cycle-cut', `${where}: ${ref} refers to itself without nesting; cut to {}`);
        base = {};
      } else {
        const key = `${ref}\u0000${mode}\u0000${depthLeft}\u0000${limits.descMax}`;
        let hit = this.memo.get(key);
        if (!hit) {
          this.refStack.push({ ref, depth: depthLeft });
          try {
            hit = this.conv(target, mode, depthLeft, limits, ref);
          } finally {
            this.refStack.pop();
          }
          this.memo.set(key, hit);
        }
        base = hit;
      }
      if (sibKeys.length === 0) return base;
      // $ref with siblings (3.1, or 3.0 in practice): description/title/nullable/deprecated apply on top.
      const onlyAnnotations = sibKeys.every((k) => ['description', 'title', 'nullable', 'deprecated', 'readOnly', 'writeOnly', 'default', 'summary'].includes(k));
      if (onlyAnnotations) {
        const out: JsonSchema = { ...base };
        const sib = this.conv({ ...siblings, ...(siblings.nullable ? {} : {}) }, mode, depthLeft, limits, where);
        if (typeof sib.description === 'string') out.description = sib.description;
        if (mode === 'input' && sib.default !== undefined) {
          out.default = sib.default;
          cleanDefault(out, where, this.warn, siblings.nullable === true);
        }
        if (siblings.nullable === true) return this.addNull(out);
        return out;
      }
      const sib = this.conv(siblings, mode, depthLeft, limits, where);
      return Object.keys(sib).length ? allOfParts([base, sib], mode, where, this.warn) : base;
    }
    return this.convObject(reconcileEnum(node, where, this.warn), mode, depthLeft, limits, where);
  }

  private addNull(s: JsonSchema): JsonSchema {
    if (Object.keys(s).length === 0) return s;
    const t = s.type;
    if (typeof t === 'string') {
      const out: JsonSchema = { ...s, type: t === 'null' ? 'null' : [t, 'null'] };
      if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
      return out;
    }
    if (Array.isArray(t)) {
      const out: JsonSchema = { ...s, type: t.includes('null') ? t : [...t, 'null'] };
      if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
      return out;
    }
    // The description and default belong to the whole value (a null default inside the non-null branch is refused).
    const { description, default: dflt, ...rest } = s;
    const out: JsonSchema = { anyOf: [rest, { type: 'null' }] };
    if (description !== undefined) out.description = description;
    if (dflt !== undefined) out.default = dflt;
    return out;
  }

  private convObject(n: Record<string, any>, mode: Mode, depthLeft: number, limits: ConvertLimits, where: string): JsonSchema {
    const out: JsonSchema = {};
    const notes: string[] = [];
    const input = mode === 'input';

    // ---- type
    let types: string[] = [];
    const rawTypes = Array.isArray(n.type) ? n.type : typeof n.type === 'string' ? [n.type] : [];
    for (const t0 of rawTypes) {
      let t = String(t0);
      if (t === 'file') {
        t = 'string';
        this.warn('type-file', `${where}: type "file" -> string`);
      }
      if (TYPES.has(t)) {
        if (!types.includes(t)) types.push(t);
      } else this.warn('bad-type', `${where}: unknown type ${JSON.stringify(t0)} dropped`);
    }
    const nullable = n.nullable === true || n['x-nullable'] === true;
    const isArrayType = types.includes('array') || (types.length === 0 && ('items' in n || 'prefixItems' in n));
    const isObjectType = types.includes('object') || (types.length === 0 && (isObj(n.properties) || 'additionalProperties' in n));

    // ---- annotations
    let desc = typeof n.description === 'string' ? n.description : '';
    if (input && typeof n.title === 'string' && n.title.length <= 80) out.title = n.title;
    if (n.deprecated === true) notes.push('Deprecated.');

    // ---- format
    if (typeof n.format === 'string') {
      const f = n.format;
      if (f === 'binary') {
        if (input) notes.push('Binary content as a string.');
      } else if (input && KNOWN_FORMATS.has(f)) {
        out.format = f;
      } else {
        notes.push(`Format: ${f}.`);
      }
    }

    // ---- enum / const / default
    if (Array.isArray(n.enum) && n.enum.length > 0) {
      if (input) {
        const seen = new Set<string>();
        const vals = n.enum.filter((v: unknown) => {
          const k = JSON.stringify(v);
          if (seen.has(k)) return false;
          seen.add(k);
          return true;
        });
        out.enum = vals;
        if (vals.includes(null) && types.length && !types.includes('null')) types.push('null');
      } else {
        const vals = n.enum.filter((v: unknown) => v !== null).map((v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v)));
        if (vals.length) notes.push(`One of: ${trimText(vals.join(', '), 200)}.`);
        // The members are not kept, but a null member is the spec saying the value may be null.
        if (n.enum.includes(null) && types.length && !types.includes('null')) types.push('null');
      }
    }
    if ('const' in n) {
      if (input) out.const = n.const;
      else notes.push(`Always ${JSON.stringify(n.const)}.`);
    }
    if (input && n.default !== undefined && !(n.default === null && !nullable && !types.includes('null'))) out.default = n.default;

    if (depthLeft < 0) {
      // Beyond the depth budget: keep only the top-level type when simple.
      if (types.length === 1) out.type = types[0];
      if (out.type === 'array') out.items = {};
      delete out.format;
      delete out.enum;
      delete out.const;
      delete out.default;
      delete out.title;
      this.warn('depth-cut', `${where}: nested schema beyond depth limit replaced by ${JSON.stringify(out.type ?? 'any')}`);
      return nullable ? this.addNull(out) : out;
    }

    // ---- validation keywords (inputs only: live output data may violate them)
    if (input) {
      for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
        if (isNonNegInt(n[k])) out[k] = n[k];
      }
      for (const k of ['minimum', 'maximum'] as const) if (isNum(n[k])) out[k] = n[k];
      if (isNum(n.multipleOf) && n.multipleOf > 0) out.multipleOf = n.multipleOf;
      if (typeof n.uniqueItems === 'boolean' && n.uniqueItems) out.uniqueItems = true;
      if (n.exclusiveMinimum === true && isNum(n.minimum)) {
        out.exclusiveMinimum = n.minimum;
        delete out.minimum;
      } else if (isNum(n.exclusiveMinimum)) out.exclusiveMinimum = n.exclusiveMinimum;
      if (n.exclusiveMaximum === true && isNum(n.maximum)) {
        out.exclusiveMaximum = n.maximum;
        delete out.maximum;
      } else if (isNum(n.exclusiveMaximum)) out.exclusiveMaximum = n.exclusiveMaximum;
      if (typeof n.pattern === 'string') {
        const pattern = uPattern(n.pattern);
        if (pattern !== undefined) out.pattern = pattern;
        else {
          this.warn('pattern-dropped', `${where}: pattern ${JSON.stringify(n.pattern)} is not a valid u-flag RegExp; dropped`);
          notes.push(`Pattern: ${n.pattern}`);
        }
      }
    }

    // ---- object
    if (isObj(n.properties)) {
      const props: Record<string, JsonSchema> = {};
      let dropped = false;
      const kept = new Set<string>();
      for (const [k, v] of Object.entries(n.properties)) {
        if (input && this.flag(v, 'readOnly')) continue;
        if (!input && this.flag(v, 'writeOnly')) continue;
        if (input && !ARG_NAME_RE.test(k)) {
          this.warn('property-name', `${where}: property ${JSON.stringify(k)} does not match ^[a-zA-Z0-9_.-]{1,64}$; left to additionalProperties`);
          dropped = true;
          continue;
        }
        const prop = this.conv(v, mode, depthLeft - 1, limits, `${where}.${k}`);
        props[k] = prop;
        kept.add(k);
      }
      out.properties = props;
      if (input && Array.isArray(n.required)) {
        const req = [...new Set(n.required.filter((r: unknown) => typeof r === 'string' && kept.has(r as string)))];
        if (req.length) out.required = req;
      }
      if (input && n.additionalProperties === false && !dropped) out.additionalProperties = false;
    }
    if (isObj(n.additionalProperties)) {
      const ap = this.conv(n.additionalProperties, mode, depthLeft - 1, limits, `${where}[*]`);
      if (Object.keys(ap).length && input) out.additionalProperties = ap;
      else if (Object.keys(ap).length) notes.push(mapValuesNote(ap));
    }
    if (input && isObj(n.patternProperties)) {
      const pp: Record<string, JsonSchema> = {};
      for (const [k, v] of Object.entries(n.patternProperties)) {
        const key = uPattern(k);
        if (key !== undefined) pp[key] = this.conv(v, mode, depthLeft - 1, limits, `${where}[${k}]`);
        else this.warn('pattern-dropped', `${where}: patternProperties key ${JSON.stringify(k)} is not a valid u-flag RegExp; dropped`);
      }
      if (Object.keys(pp).length) out.patternProperties = pp;
    }

    // ---- array
    if (isArrayType) {
      if (Array.isArray(n.items)) {
        const members = n.items.map((s: unknown, i: number) => this.conv(s, mode, depthLeft - 1, limits, `${where}[${i}]`));
        out.items = this.anyOf(members);
        this.warn('tuple-items', `${where}: tuple items -> items.anyOf`);
      } else if (n.items !== undefined) {
        out.items = this.conv(n.items, mode, depthLeft - 1, limits, `${where}[]`);
      } else if (Array.isArray(n.prefixItems)) {
        out.items = this.anyOf(n.prefixItems.map((s: unknown, i: number) => this.conv(s, mode, depthLeft - 1, limits, `${where}[${i}]`)));
        this.warn('tuple-items', `${where}: prefixItems -> items.anyOf`);
      } else {
        out.items = {};
      }
      if (types.length === 0) types.push('array');
    }
    if (isObjectType && types.length === 0) types.push('object');

    // ---- composition
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
      if (!Array.isArray(n[k]) || n[k].length === 0) continue;
      const members = n[k].map((s: unknown, i: number) => this.conv(s, mode, depthLeft, limits, `${where}.${k}[${i}]`));
      if (k === 'allOf') {
        const nonEmpty = members.filter((m: JsonSchema) => Object.keys(m).length > 0);
        if (nonEmpty.length === 1 && !out.allOf && !isObj(out.properties) && types.length === 0) {
          // single-member allOf (the common "allOf:[{$ref}]" wrapper): inline it
          const only = nonEmpty[0]!;
          const { description: innerDesc, ...inner } = only;
          Object.assign(out, { ...inner, ...out });
          if (!desc && typeof innerDesc === 'string') desc = innerDesc;
          if (typeof only.type === 'string' || Array.isArray(only.type)) {
            for (const t of [only.type].flat() as string[]) if (!types.includes(t)) types.push(t);
          }
        } else if (nonEmpty.length) {
          const all = allOfParts(nonEmpty, mode, where, this.warn, out);
          if (all.anyOf && !out.anyOf) out.anyOf = all.anyOf;
          else out.allOf = all.allOf ?? [all];
        }
      } else {
        const merged = this.anyOf(members);
        if (Object.keys(merged).length === 0) continue;
        if (merged.anyOf) {
          if (out.anyOf) out.allOf = [...((out.allOf as JsonSchema[]) ?? []), { anyOf: merged.anyOf }];
          else out.anyOf = merged.anyOf;
        } else {
          out.allOf = [...((out.allOf as JsonSchema[]) ?? []), merged];
        }
      }
    }
    if (input && n.not !== undefined && isObj(n.not)) {
      const nt = this.conv(n.not, mode, depthLeft, limits, `${where}.not`);
      if (Object.keys(nt).length) out.not = nt;
    }
    for (const k of ['$dynamicRef', '$recursiveRef', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'if', 'contains', 'propertyNames']) {
      if (k in n) this.warn('keyword-dropped', `${where}: ${k} dropped`);
    }

    // ---- finish type / nullability
    if (types.length === 1) out.type = types[0];
    else if (types.length > 1) out.type = types;
    if (types.includes('array') && out.items === undefined) out.items = {};

    if (typeof out.format === 'string' && !types.length) {
      // a format without a type is fine in JSON Schema; keep
    }
    // Output descriptions only near the root (top two levels): they cost ~30% of the catalogue size.
    const text = input || limits.depth - depthLeft <= 1 ? [desc, ...notes].filter(Boolean).join(' ').trim() : '';
    if (text) out.description = trimText(text, limits.descMax);
    else delete out.description;
    if (input) cleanDefault(out, where, this.warn, nullable);
    return nullable ? this.addNull(out) : out;
  }

  /** anyOf of converted members; an empty member means "anything", which absorbs the anyOf. */
  private anyOf(members: JsonSchema[]): JsonSchema {
    if (members.length === 0) return {};
    if (members.some((m) => Object.keys(m).length === 0)) return {};
    const seen = new Set<unknown>();
    const uniq = members.filter((m) => {
      // structural dedupe for small members; identity for big ones (stringifying expanded DAGs is costly)
      const k = schemaSize(m) < 2000 ? JSON.stringify(m) : m;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return uniq.length === 1 ? uniq[0]! : { anyOf: uniq };
  }
}

