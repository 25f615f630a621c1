// Build time: which nested fields of a tool's result are other API resources (docs/results.md, "Embedded resources").
// A field qualifies when its schema (or its array's item schema) is an object with an identity field (id, number,
// login, sha …) and a self link into the API (url, self, href …, or a _links/links object). Paths are relative to one
// result item (the list item, or the whole result when it is not a list) and go through arrays; the search stops
// at the first resource on a path, since what is below it is shortened away. The run time checks each value again
// (src/results/embedded-resources.ts).
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { IDENTITY_FIELDS, LINKS_OBJECTS, SELF_LINK_FIELDS } from '../../src/results/embedded-resources.ts';
import { projectionSchemas } from '../../src/results/shape.ts';
import { isObj } from '../lib/is-object.ts';

const MAX_DEPTH = 5;

// The converter shares one schema object per $ref, so the same object is asked about from thousands of places
// (Microsoft Graph spent 14 s here without these caches). Schemas are not changed once converted.
const propsCache = new WeakMap<object, Map<string, JsonSchema>>();
const resourceCache = new WeakMap<object, boolean>();

/** The properties an object (or each element of an array) of `schema` may have, through composition. */
function propsOf(schema: unknown, depth = 0): Map<string, JsonSchema> {
  if (depth === 0 && isObj(schema)) {
    let hit = propsCache.get(schema);
    if (!hit) propsCache.set(schema, (hit = collectProps(schema, 0)));
    return hit;
  }
  return collectProps(schema, depth);
}

function collectProps(schema: unknown, depth: number): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  if (!isObj(schema) || depth > 8) return out;
  if (isObj(schema.items)) for (const [k, v] of propsOf(schema.items, depth + 1)) if (!out.has(k)) out.set(k, v);
  if (isObj(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) if (isObj(v) && !out.has(k)) out.set(k, v as JsonSchema);
  for (const c of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[c])) for (const b of schema[c] as unknown[]) for (const [k, v] of propsOf(b, depth + 1)) if (!out.has(k)) out.set(k, v);
  return out;
}

export function isResourceSchema(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  let hit = resourceCache.get(schema);
  if (hit === undefined) resourceCache.set(schema, (hit = hasIdentityAndSelf(propsOf(schema))));
  return hit;
}

function hasIdentityAndSelf(props: Map<string, JsonSchema>): boolean {
  let identity = false;
  let self = false;
  for (const k of props.keys()) {
    if (IDENTITY_FIELDS.has(k)) identity = true;
    if (SELF_LINK_FIELDS.has(k) || LINKS_OBJECTS.has(k)) self = true;
  }
  return identity && self;
}

const isArraySchema = (s: JsonSchema) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')) || (s.items !== undefined && s.type === undefined);

/** Dotted paths, relative to one result item, of nested fields that are API resources; sorted. */
export function embeddedPaths(tool: CatalogueTool): string[] {
  const item = projectionSchemas(tool)[0];
  if (!isObj(item)) return [];
  const found: string[] = [];
  // A result that is not itself a resource (an envelope the generator did not recognise as a list) keeps its own
  // arrays whole: they are its content, not copies of other resources.
  const rootIsResource = isResourceSchema(item);
  const walk = (schema: unknown, path: string[]) => {
    for (const [k, s] of propsOf(schema)) {
      if (LINKS_OBJECTS.has(k)) continue;
      if (!path.length && !rootIsResource && isArraySchema(s)) continue;
      const here = [...path, k];
      if (isResourceSchema(s)) found.push(here.join('.'));
      else if (here.length < MAX_DEPTH) walk(s, here);
    }
  };
  walk(item, []);
  return found.sort();
}
