// The response example a spec gives for an operation: the first JSON example (`example`, or the first of
// `examples`, components refs resolved) of its first 2xx response that has one. Used to size pages
// (result-shape.ts) and by the token report's result section.
import { isObj } from '../lib/is-object.ts';
import { isJsonOrJsonWildcard } from './json-media-type.ts';

/** Resolves local `#/…` refs (a bounded chain; a broken one resolves to undefined). */
export function derefIn(doc: unknown, node: unknown): unknown {
  let n = node;
  for (let i = 0; i < 20 && isObj(n) && typeof n.$ref === 'string'; i++) {
    const ref = n.$ref;
    if (!ref.startsWith('#/')) return undefined;
    n = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((o, k) => (isObj(o) ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return n;
}

export function responseExample(doc: unknown, op: Record<string, unknown>): { value: unknown } | undefined {
  const responses = isObj(op.responses) ? op.responses : {};
  for (const code of Object.keys(responses)) {
    if (!/^2(\d\d|xx)$/i.test(code)) continue;
    const r = derefIn(doc, responses[code]);
    if (!isObj(r) || !isObj(r.content)) continue;
    for (const [mt, m0] of Object.entries(r.content)) {
      const m = derefIn(doc, m0);
      if (!isJsonOrJsonWildcard(mt) || !isObj(m)) continue;
      if (m.example !== undefined) return { value: m.example };
      if (isObj(m.examples)) {
        for (const e0 of Object.values(m.examples)) {
          const e = derefIn(doc, e0);
          if (isObj(e) && e.value !== undefined) return { value: e.value };
        }
      }
    }
  }
  return undefined;
}
