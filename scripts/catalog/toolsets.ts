// Generated toolsets: an operation's sanitised tags, or for an untagged one its first path segment that is not a
// parameter, a version (v1, v2.1) or "api". Each toolset is described by its tag's own description, else by
// the first tag spelling seen.
import { isObj } from '../lib/is-object.ts';
import { snake, toIdentifier } from './naming.ts';
import type { Operation } from './operations.ts';
import { trimText } from './trim-text.ts';


export function operationToolsets(o: Operation): string[] {
  const tags = (Array.isArray(o.op.tags) ? o.op.tags : []).filter((t: unknown) => typeof t === 'string' && snake(t as string));
  return tags.length ? [...new Set(tags.map((t: string) => toIdentifier(t, 'ts')))].sort() : [pathToolset(o.path)];
}

function pathToolset(path: string): string {
  // A path key's query part (`/rest?method=x`, AWS's `/#X-Amz-Target=…`) names an operation, not a resource.
  const seg = path
    .split(/[?#]/, 1)[0]!
    .split('/').filter((s) => s && !/^\{.*\}$/.test(s) && !/^v\d+(\.\d+)*$/i.test(s) && s.toLowerCase() !== 'api')[0];
  return seg ? toIdentifier(seg, 'ts') : 'default';
}

/** Descriptions of the generated toolsets, filled in operation order (first operation of a toolset wins). */
export class ToolsetDescriptions {
  private readonly fromTags = new Map<string, string>();
  readonly described = new Map<string, string>();

  constructor(doc: any) {
    for (const t of Array.isArray(doc.tags) ? doc.tags : []) {
      if (isObj(t) && typeof t.name === 'string') this.fromTags.set(toIdentifier(t.name, 'ts'), typeof t.description === 'string' ? t.description : '');
    }
  }

  add(o: Operation, toolsets: string[]): void {
    for (const ts of toolsets) {
      if (this.described.has(ts)) continue;
      const orig = (Array.isArray(o.op.tags) ? o.op.tags : []).find((t: string) => toIdentifier(t, 'ts') === ts) ?? ts;
      this.described.set(ts, trimText(this.fromTags.get(ts) || `Operations tagged "${orig}".`, 300));
    }
  }
}
